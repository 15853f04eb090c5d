"""reconcile."""
