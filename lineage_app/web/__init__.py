"""The web UI: login, and the single-page lineage explorer built from `frontend/`."""
