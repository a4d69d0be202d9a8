"""colonnade.feature_columns (in progress: see the project's issues)."""
