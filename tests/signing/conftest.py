"""Keys and a realistic Spark run event shared by the signing tests."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol import generate_private_key

PRODUCER = "https://github.com/tributary/tributary/tree/0.1.0/spark_agent"
RUN_EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA_FACET = "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
LINEAGE_FACET = (
    "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
)


def _schema(columns: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "_producer": PRODUCER,
        "_schemaURL": SCHEMA_FACET,
        "fields": [
            {"name": name, "type": kind, "ordinal_position": position}
            for position, (name, kind) in enumerate(columns, start=1)
        ],
    }


def make_run_event() -> dict[str, Any]:
    """A COMPLETE event of a Spark join, shaped like what the agent emits."""
    orders = [("order_id", "long"), ("customer_id", "long"), ("amount", "decimal(12,2)")]
    customers = [("customer_id", "long"), ("name", "string"), ("country", "string")]
    output = [("order_id", "long"), ("name", "string"), ("amount_eur", "double")]
    return {
        "eventType": "COMPLETE",
        "eventTime": "2025-03-14T09:26:53.589Z",
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT_SCHEMA,
        "run": {
            "runId": "0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b",
            "facets": {
                "processing_engine": {
                    "_producer": PRODUCER,
                    "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet",
                    "version": "3.5.1",
                    "name": "spark",
                },
            },
        },
        "job": {"namespace": "spark://etl", "name": "daily_orders.enrich"},
        "inputs": [
            {
                "namespace": "s3://lake",
                "name": "raw/orders",
                "facets": {"schema": _schema(orders)},
                "inputFacets": {},
            },
            {
                "namespace": "s3://lake",
                "name": "raw/customers",
                "facets": {"schema": _schema(customers)},
            },
        ],
        "outputs": [
            {
                "namespace": "s3://lake",
                "name": "curated/orders_enriched",
                "facets": {
                    "schema": _schema(output),
                    "columnLineage": {
                        "_producer": PRODUCER,
                        "_schemaURL": LINEAGE_FACET,
                        "fields": {
                            "amount_eur": {
                                "inputFields": [
                                    {
                                        "namespace": "s3://lake",
                                        "name": "raw/orders",
                                        "field": "amount",
                                        "transformations": [{"type": "DIRECT", "subtype": "TRANSFORMATION"}],
                                    }
                                ]
                            }
                        },
                    },
                },
                "outputFacets": {
                    "outputStatistics": {
                        "_producer": PRODUCER,
                        "_schemaURL": "https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet",
                        "rowCount": 120544,
                        "size": 8843920,
                        "fileCount": 4,
                    }
                },
            }
        ],
    }


@pytest.fixture
def event() -> dict[str, Any]:
    return make_run_event()


@pytest.fixture(scope="session")
def private_key() -> Ed25519PrivateKey:
    return generate_private_key()


@pytest.fixture(scope="session")
def other_key() -> Ed25519PrivateKey:
    return generate_private_key()
