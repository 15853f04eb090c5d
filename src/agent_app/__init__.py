"""agent_app."""
