"""colonnade.estimators (in progress: see the project's issues)."""
