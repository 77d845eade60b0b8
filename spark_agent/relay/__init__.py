"""The edge relay: an OpenLineage HTTP endpoint that signs, durably buffers and forwards any producer's events."""
