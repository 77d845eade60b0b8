"""The sample alert rules and Grafana dashboard: well formed, and every metric they query is one Tributary exports.

`promtool check rules` is the full check of the PromQL; it is not installed here, so these tests check the
file's structure and the metric and job names, which is where edits to the metrics go wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from django.utils import timezone
from prometheus_client.metrics import MetricWrapperBase

from lineage_app.notify.selectors import outbox_gauges
from lineage_app.observability import metrics
from lineage_app.observability.exposition import (
    EventLogCollector,
    EventLogGauges,
    GraphCheckGauges,
    LedgerGauges,
    LogGauges,
    OutboxCollector,
    WitnessGauges,
)
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db

ALERTS = ROOT / "docs" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "docs" / "grafana" / "tributary.json"
METRIC_NAME = re.compile(r"\btributary_[a-z_]+")
JOBS = {"tributary-web", "tributary-worker"}
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def exported() -> set[str]:
    """Every sample name Tributary's processes export: the metrics module's, the event-log and outbox gauges."""
    families = [f for m in vars(metrics).values() if isinstance(m, MetricWrapperBase) for f in m.describe()]
    checked = GraphCheckGauges(checked_at=timezone.now(), runs_checked=0, runs_differing=0)
    ledger = LedgerGauges(open_gaps=0, forks=0, truncated_streams=0)
    log = LogGauges(size=0, checkpoint_size=0, checkpoint_at=None, mismatches=0)
    no_events = EventLogGauges(
        by_status={},
        oldest_pending=None,
        by_verification={"VERIFIED": 0},
        graph_check=checked,
        ledger=ledger,
        log=log,
        witness=WitnessGauges(unwitnessed_checkpoints=0, alarms=0),
    )
    families += list(EventLogCollector(lambda: no_events).collect())
    families += list(OutboxCollector(outbox_gauges).collect())
    return {family.name + suffix for family in families for suffix in SUFFIXES[family.type]}


def queried(expr: str) -> set[str]:
    return set(METRIC_NAME.findall(expr))


def rules() -> list[dict[str, Any]]:
    document = yaml.safe_load(ALERTS.read_text())
    assert set(document) == {"groups"}
    assert all(set(group) == {"name", "rules"} and group["rules"] for group in document["groups"])
    return [rule for group in document["groups"] for rule in group["rules"]]


def test_alert_rules_have_the_fields_prometheus_needs_and_query_exported_metrics() -> None:
    names = exported()
    for rule in rules():
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert re.fullmatch(r"Tributary[A-Za-z0-9]+", rule["alert"])
        assert isinstance(rule["expr"], str) and rule["expr"].strip()
        assert re.fullmatch(r"\d+[smh]", rule.get("for", "0s")), rule["alert"]
        assert rule["labels"]["severity"] in {"warning", "critical"}, rule["alert"]
        assert {"summary", "description"} <= set(rule["annotations"]), rule["alert"]
        assert queried(rule["expr"]) <= names, f"{rule['alert']} queries a metric nobody exports"
        assert set(re.findall(r'job="([^"]+)"', rule["expr"])) <= JOBS, rule["alert"]


def test_the_alert_rules_cover_what_an_operator_is_woken_for() -> None:
    by_name = {rule["alert"]: rule["expr"] for rule in rules()}
    assert len(by_name) == len(rules()), "alert names are unique"
    expected = {
        "TributaryBacklogGrowing": "tributary_events_backlog",
        "TributaryOldestPendingEventTooOld": "tributary_events_oldest_pending_age_seconds",
        "TributaryApplyFailures": "tributary_events_failed_total",
        "TributaryQuarantineSpike": "tributary_events_quarantined_total",
        "TributaryHttp5xxRate": "tributary_http_requests_total",
        "TributaryWorkerDown": 'up{job="tributary-worker"}',
    }
    for alert, query in expected.items():
        assert query in by_name[alert], alert


def test_the_dashboard_is_grafana_json_showing_every_exported_metric() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    exprs = [target["expr"] for panel in panels if panel["type"] != "row" for target in panel["targets"]]
    shown = set().union(*(queried(expr) for expr in exprs))
    names = exported()
    assert shown <= names, shown - names
    families = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in names}
    assert {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in shown} == families, "a metric has no panel"
