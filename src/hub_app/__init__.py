"""hub_app."""
