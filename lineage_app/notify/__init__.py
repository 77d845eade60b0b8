"""Notification delivery: destinations (email, Slack, Teams, signed webhooks) and a durable outbox of deliveries."""
