"""jira_sim."""
