"""Impact reports in every format, opened and read back; the management command writes the same file."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from pypdf import PdfReader
from rest_framework.test import APIClient

from tests.apply import accept_and_apply
from tests.events import dataset, run_event
from tests.explorer.known_graph import CLEAN, EXPORT, EXPORT_JOB, MART, RAW, build_known_graph

pytestmark = pytest.mark.django_db

EVIL = '<script>alert("x")</script>'
EVIL_ID = f"dataset:db:{EVIL}"


@pytest.fixture
def known(graph: Any) -> None:
    build_known_graph()
    # A dataset downstream of mart.revenue whose name is markup, owned by a team with an odd name.
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id="00000000-0000-4000-8000-0000000000ff",
            job="evil",
            namespace="spark",
            inputs=[dataset("db", "mart.revenue")],
            outputs=[dataset("db", EVIL, owners=["team:<b>ops</b> & co"])],
        )
    )


def download(client: APIClient, fmt: str, **params: Any) -> tuple[Any, bytes]:
    response = client.get("/api/v1/impact/report", {"nodeId": RAW, "depth": 10, "format": fmt, **params})
    assert response.status_code == 200, response.content
    assert response["Content-Disposition"] == f'attachment; filename="impact-dataset_db_raw.orders.{fmt}"'
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body


def test_json_report_is_the_impact_answer(known: None, read_client: APIClient) -> None:
    response, body = download(read_client, "json")
    assert response["Content-Type"] == "application/json"
    report = json.loads(body)
    assert {a["id"] for a in report["assets"] if a["type"] == "DATASET"} == {CLEAN, MART, EXPORT, EVIL_ID}
    assert report["summary"]["total"] == len(report["assets"]) == 11


def test_csv_report_has_one_row_per_asset_with_paths_and_owners(known: None, read_client: APIClient) -> None:
    response, body = download(read_client, "csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"))))
    assert len(rows) == 11
    found = {row["id"]: row for row in rows}
    assert found[EXPORT]["path"] == " > ".join(
        [RAW, "job:spark:load_orders", CLEAN, "job:spark:aggregate", MART, EXPORT_JOB, EXPORT]
    )
    assert found[EXPORT]["distance"] == "6" and found[EXPORT]["lastRunState"] == "ABORTED"
    assert found[CLEAN]["owners"] == "team:sales (MAINTAINER, event)"
    assert found[EVIL_ID]["name"] == EVIL and found[EVIL_ID]["owners"] == "team:<b>ops</b> & co (MAINTAINER, event)"
    total = found["datasetField:db:mart.revenue:total"]
    assert total["transformations"] == (
        "DIRECT/TRANSFORMATION by job:spark:load_orders > DIRECT/AGGREGATION by job:spark:aggregate"
    )


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.links += [value or "" for name, value in attrs if name in {"src", "href"}]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_report_is_self_contained_and_escapes_every_value(known: None, read_client: APIClient) -> None:
    _, body = download(read_client, "html")
    page = _Page()
    page.feed(body.decode("utf-8"))
    assert "script" not in page.tags and "b" not in page.tags  # the names stayed text
    assert "style" in page.tags and page.links == []  # inline CSS, nothing fetched
    text = "".join(page.text)
    assert EVIL_ID in text and "team:<b>ops</b> & co" in text
    assert "Summary: 11 affected assets" in text
    assert b"&lt;script&gt;" in body and b"<script>" not in body


def test_pdf_report_text_lists_every_asset_and_the_summary(known: None, read_client: APIClient) -> None:
    response, body = download(read_client, "pdf")
    assert response["Content-Type"] == "application/pdf" and body.startswith(b"%PDF")
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(body)).pages)
    for asset in (CLEAN, MART, EXPORT, EXPORT_JOB, EVIL_ID, "datasetField:db:mart.revenue:total"):
        assert asset in text
    assert "team:sales (MAINTAINER, event)" in text
    assert "Summary: 11 affected assets" in text


def test_a_pdf_of_more_rows_than_its_limit_is_refused_and_points_to_csv(
    known: None, read_client: APIClient, settings: Any
) -> None:
    settings.IMPACT_PDF_MAX_ROWS = 11  # the report's rows: still a PDF
    download(read_client, "pdf")
    settings.IMPACT_PDF_MAX_ROWS = 10
    response = read_client.get("/api/v1/impact/report", {"nodeId": RAW, "depth": 10, "format": "pdf"})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "too_large" and body["path"] == "format"
    assert "11 assets" in body["message"] and "format=csv" in body["message"]
    download(read_client, "csv")  # the other formats have no limit


def test_report_format_must_be_known(known: None, read_client: APIClient) -> None:
    response = read_client.get("/api/v1/impact/report", {"nodeId": RAW, "format": "xlsx"})
    assert response.status_code == 400 and response.json()["path"] == "format"


@pytest.mark.parametrize("fmt", ["json", "csv", "html", "pdf"])
def test_management_command_writes_the_same_report(
    known: None, read_client: APIClient, tmp_path: Path, fmt: str
) -> None:
    target = tmp_path / f"report.{fmt}"
    call_command("impact_report", RAW, "--format", fmt, "--output", str(target))
    written = target.read_bytes()
    _, served = download(read_client, fmt)
    if fmt == "json":
        mine, theirs = json.loads(written), json.loads(served)
        mine.pop("generatedAt"), theirs.pop("generatedAt")
        assert mine == theirs
    elif fmt == "csv":
        assert written == served
    elif fmt == "html":
        assert written.split(b"generated", 1)[1].split(b")", 1)[1] == served.split(b"generated", 1)[1].split(b")", 1)[1]
    else:
        assert (
            PdfReader(io.BytesIO(written)).pages[0].extract_text().splitlines()[3:]
            == PdfReader(io.BytesIO(served)).pages[0].extract_text().splitlines()[3:]
        )


def test_management_command_refuses_an_unknown_node(known: None, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no dataset"):
        call_command("impact_report", "dataset:db:nope", "--output", str(tmp_path / "x.json"))
