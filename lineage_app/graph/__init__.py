"""Graph access: the one package that talks to Neo4j (or embedded ArcadeDB) over Bolt."""
