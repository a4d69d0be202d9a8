"""colonnade.data (in progress: see the project's issues)."""
