"""Every statement that finds a node by an indexed key names the index to seek (`graph.model.key_seek`).

Neo4j plans from sampled index statistics: on a new or freshly loaded graph it may scan a whole index per row
where a key would be sought (docs/apply-throughput.md, "Plans on a new graph's statistics"). The hint is what
holds the plan, so a statement written without one is caught here, on every statement constant of
`lineage_app.graph` (the texts `docs/cypher.md` lists), with no engine needed.
"""

from __future__ import annotations

import re

from lineage_app.graph.management.commands.cypher_catalog import cypher_statement_names
from lineage_app.graph.schema import LOOKUP_INDEXES, UNIQUE_KEYS

INDEXED = {(label.value, prop) for label, prop in (*UNIQUE_KEYS, *LOOKUP_INDEXES)}
# A clause keyword, and a node pattern with a property map: `(var:Label {prop: …`.
CLAUSE = re.compile(r"\b(OPTIONAL MATCH|MATCH|MERGE|CREATE|WHERE|WITH|RETURN|SET|UNWIND|FOREACH)\b")
KEYED_NODE = re.compile(r"\((\w+):(\w+) \{(\w+): ")


def keyed_matches(statement: str) -> list[tuple[str, str, str]]:
    """(var, label, property) of each node a plain `MATCH` clause finds by an indexed property."""
    found = []
    for node in KEYED_NODE.finditer(statement):
        clauses = CLAUSE.findall(statement, 0, node.start())
        var, label, prop = node.groups()
        if clauses and clauses[-1] == "MATCH" and (label, prop) in INDEXED:
            found.append((var, label, prop))
    return found


def test_the_check_reads_clauses_as_the_engine_does() -> None:
    statement = (
        "UNWIND $rows AS row MATCH (j:Job {key: row.jobKey})-[e:OUTPUTS]->(d:Dataset {key: row.datasetKey})\n"
        "USING INDEX SEEK j:Job(key)\nOPTIONAL MATCH (a:DatasetAlias {canonicalKey: row.datasetKey})\n"
        "MERGE (t:Tag {key: row.tag}) WITH j MATCH (o:Owner {contact: 'x'})"
    )
    assert keyed_matches(statement) == [("j", "Job", "key"), ("d", "Dataset", "key")]


def test_every_node_matched_by_an_indexed_key_is_sought_through_its_index() -> None:
    unhinted = [
        f"{name}: {var}:{label}({prop})"
        for statement, name in sorted(cypher_statement_names().items(), key=lambda item: item[1])
        for var, label, prop in keyed_matches(statement)
        if f"USING INDEX SEEK {var}:{label}({prop})" not in statement
    ]
    assert not unhinted, "add graph.model.key_seek for: " + "; ".join(unhinted)
