"""Reading Spark plans: datasets, schemas, column lineage and metrics."""
