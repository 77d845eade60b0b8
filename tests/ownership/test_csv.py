"""CSV import and export of assignments: every row checked first, per-row errors, nothing half-applied."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from lineage_app.accounts.roles import role_grant
from lineage_app.graph.driver import graph_read, records
from lineage_app.ownership import services
from lineage_app.ownership.models import Owner, OwnershipAssignment
from tests.ownership.scenario import seed

pytestmark = pytest.mark.django_db

HEADER = "owner,kind,email,channel,target_type,namespace,name,role\n"
GOOD = HEADER + (
    "warehouse,team,wh@example.com,#wh,namespace,db,,owner\n"
    "ana,person,ana@example.com,,dataset,db,orders,on-call\n"
    "billing,team,,#billing,job,db,load,steward\n"
)


def manual_edge_count() -> int:
    return graph_read(lambda tx: records(tx, "MATCH ()-[e:OWNED_BY {source: 'manual'}]->() RETURN count(e) AS n"))[0][
        "n"
    ]


def test_bad_rows_are_all_reported_by_row_and_column_and_nothing_is_applied(graph):  # type: ignore[no-untyped-def]
    seed()
    text = GOOD + (
        "ana,robot,not-an-email,,dataset,db,orders,owner\n"  # row 5: kind, email
        ",team,,,table,db,x,boss\n"  # row 6: owner, target_type, role
        "warehouse,team,wh@example.com,#wh,namespace,db,customers,owner\n"  # row 7: name given for a namespace
        "billing,team,,#billing,job,db,load,steward\n"  # row 8: repeats row 4
    )
    with pytest.raises(services.CsvImportInvalid) as caught:
        services.assignments_import_csv(text=text)
    found = {(p.row, p.column) for p in caught.value.problems}
    assert {(5, "kind"), (5, "email"), (6, "owner"), (6, "target_type"), (6, "role"), (7, "name"), (8, "-")} <= found
    assert all(p.row >= 5 for p in caught.value.problems)  # the good rows have no problems
    assert "row 5, column email: is not an e-mail address ('not-an-email')" in [str(p) for p in caught.value.problems]
    assert not OwnershipAssignment.objects.filter(source="manual").exists()
    assert set(Owner.objects.values_list("name", flat=True)) == {"team:crm"}
    assert manual_edge_count() == 0


def test_a_header_without_the_required_columns_is_refused(graph):  # type: ignore[no-untyped-def]
    with pytest.raises(services.CsvImportInvalid) as caught:
        services.assignments_import_csv(text="owner,role\nana,owner\n")
    assert {(p.row, p.column) for p in caught.value.problems} >= {(1, "target_type"), (1, "namespace")}


def test_export_then_import_round_trips_the_hand_set_assignments(graph):  # type: ignore[no-untyped-def]
    seed()
    result = services.assignments_import_csv(text=GOOD)
    assert (result.created, result.unchanged) == (3, 0)
    assert manual_edge_count() == 3
    exported = services.assignments_export_csv()
    assert exported.splitlines()[0] == HEADER.strip() + ",source"
    assert "team:crm,team,,,dataset,db,customers,MAINTAINER,event" in exported
    before = sorted(
        OwnershipAssignment.objects.filter(source="manual").values_list(
            "owner__name", "owner__kind", "owner__email", "owner__channel", "target_type", "namespace", "name", "role"
        )
    )
    services.assignments_delete(assignments=OwnershipAssignment.objects.filter(source="manual"))
    assert manual_edge_count() == 0
    again = services.assignments_import_csv(text=exported)
    assert (again.created, again.skipped_event_rows) == (3, 1)
    after = sorted(
        OwnershipAssignment.objects.filter(source="manual").values_list(
            "owner__name", "owner__kind", "owner__email", "owner__channel", "target_type", "namespace", "name", "role"
        )
    )
    assert after == before
    assert manual_edge_count() == 3
    assert services.assignments_import_csv(text=exported).unchanged == 3  # importing twice changes nothing


@pytest.fixture
def editor_client(db) -> Client:  # type: ignore[no-untyped-def]
    user = User.objects.create_user("ed", password="pw")
    role_grant(user=user, role="editor")
    client = Client()
    client.force_login(user)
    return client


def test_the_admin_import_page_lists_the_per_row_errors(graph, editor_client):  # type: ignore[no-untyped-def]
    upload = SimpleUploadedFile("o.csv", (GOOD + "ana,person,ana@example.com,,dataset,db,,owner\n").encode())
    response = editor_client.post("/admin/catalog/ownershipassignment/import-csv/", {"file": upload})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported: 1 problem(s)" in page
    assert "<td>5</td><td>name</td><td>is required for a dataset</td>" in page
    assert not OwnershipAssignment.objects.exists()


def test_the_admin_imports_a_good_file_and_exports_it(graph, editor_client):  # type: ignore[no-untyped-def]
    upload = SimpleUploadedFile("o.csv", GOOD.encode())
    response = editor_client.post("/admin/catalog/ownershipassignment/import-csv/", {"file": upload})
    assert response.status_code == 302
    assert OwnershipAssignment.objects.filter(source="manual").count() == 3
    exported = editor_client.get("/admin/catalog/ownershipassignment/export-csv/")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    assert b"ana,person,ana@example.com,,dataset,db,orders,on-call,manual" in exported.content
    changelist = editor_client.get("/admin/catalog/ownershipassignment/?source__exact=event")
    assert changelist.status_code == 200 and b"Import CSV" in changelist.content
