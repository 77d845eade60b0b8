"""How any producer's events reach the server: the edge relay, an OpenLineage HTTP endpoint that signs, durably
buffers and forwards them (`python -m lineage_relay`); `ship`, which sends JSON-Lines files once
(`python -m lineage_relay.ship`); and the transports both share with the Spark agent (`transports`)."""
