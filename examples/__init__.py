"""Example jobs that run through the Tributary lineage agent."""
