"""Observability: Prometheus metrics (definitions, the `/metrics` view, the workers' server) and structured logs."""
