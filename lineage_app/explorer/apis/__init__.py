"""Read endpoints, one module per resource: lineage graphs, namespaces, datasets, jobs and runs, failures, search."""
