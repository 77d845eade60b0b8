"""Read-API routes (`GET /api/v1/lineage` itself is in `lineage_endpoint`, shared with ingestion)."""

from __future__ import annotations

from django.urls import path

from lineage_app.explorer.apis import (
    datasets,
    failures,
    jobs,
    lineage_diffs,
    lineage_graphs,
    namespaces,
    quality,
    search,
)

urlpatterns = [
    path("column-lineage", lineage_graphs.ColumnLineageGraphApi.as_view(), name="column-lineage"),
    path("lineage/neighbours", lineage_graphs.LineageNeighbourListApi.as_view(), name="lineage-neighbours"),
    path("lineage/diff", lineage_diffs.LineageDiffApi.as_view(), name="lineage-diff"),
    path("column-lineage/diff", lineage_diffs.ColumnLineageDiffApi.as_view(), name="column-lineage-diff"),
    path("namespaces", namespaces.NamespaceListApi.as_view(), name="namespace-list"),
    path("datasets", datasets.DatasetListApi.as_view(), name="dataset-list"),
    path("datasets/detail", datasets.DatasetDetailApi.as_view(), name="dataset-detail"),
    path("datasets/quality", quality.DatasetQualityApi.as_view(), name="dataset-quality"),
    path("datasets/near-miss", datasets.DatasetNearMissApi.as_view(), name="dataset-near-miss"),
    path("datasets/versions/diff", datasets.DatasetVersionDiffApi.as_view(), name="dataset-version-diff"),
    path("jobs", jobs.JobListApi.as_view(), name="job-list"),
    path("jobs/detail", jobs.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/runs", jobs.JobRunListApi.as_view(), name="job-run-list"),
    path("jobs/runs/<str:run_id>", jobs.RunDetailApi.as_view(), name="run-detail"),
    path("jobs/runs/<str:run_id>/lineage", jobs.RunLineageApi.as_view(), name="run-lineage"),
    path("failures", failures.FailureListApi.as_view(), name="failure-list"),
    path("failures/jobs", failures.FailureJobListApi.as_view(), name="failure-job-list"),
    path("search", search.NodeSearchApi.as_view(), name="node-search"),
]
