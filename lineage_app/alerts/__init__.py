"""Alerts: change records after apply become incidents, one per root cause, routed to the affected owners."""
