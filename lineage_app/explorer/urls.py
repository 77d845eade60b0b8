"""Read-API routes (`GET /api/v1/lineage` itself is in `lineage_endpoint`, shared with ingestion)."""

from __future__ import annotations

from django.urls import path

from lineage_app.explorer import apis

urlpatterns = [
    path("column-lineage", apis.ColumnLineageGraphApi.as_view(), name="column-lineage"),
    path("namespaces", apis.NamespaceListApi.as_view(), name="namespace-list"),
    path("datasets", apis.DatasetListApi.as_view(), name="dataset-list"),
    path("datasets/detail", apis.DatasetDetailApi.as_view(), name="dataset-detail"),
    path("datasets/near-miss", apis.DatasetNearMissApi.as_view(), name="dataset-near-miss"),
    path("datasets/versions/diff", apis.DatasetVersionDiffApi.as_view(), name="dataset-version-diff"),
    path("jobs", apis.JobListApi.as_view(), name="job-list"),
    path("jobs/detail", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/runs", apis.JobRunListApi.as_view(), name="job-run-list"),
    path("jobs/runs/<str:run_id>", apis.RunDetailApi.as_view(), name="run-detail"),
    path("failures", apis.FailureListApi.as_view(), name="failure-list"),
    path("failures/jobs", apis.FailureJobListApi.as_view(), name="failure-job-list"),
    path("search", apis.NodeSearchApi.as_view(), name="node-search"),
]
