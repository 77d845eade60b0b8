"""The explorer's reads, one module per question the read API answers; import from the module itself.

- `lineage`: datasets and jobs around a node, and column lineage;
- `namespaces`, `datasets`, `jobs_and_runs`: listings and detail pages (a dataset's schema versions, a run's events);
- `failures`: failed runs, and the same grouped by job;
- `blast_radius`: what a failure should have written, everything downstream of it, and their owners;
- `search`: nodes by name;
- `near_miss`: why two datasets are not connected.
"""
