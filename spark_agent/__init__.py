"""Tributary's PySpark lineage agent."""
