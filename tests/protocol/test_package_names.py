"""The protocol's names: every one the package exports resolves, and a producer that does not sign loads
none of signing's modules (`cryptography`, `rfc8785`, the JSON Schemas) by importing the package."""

from __future__ import annotations

import subprocess
import sys

import lineage_protocol


def test_every_exported_name_resolves_to_the_object_its_module_defines() -> None:
    for name in lineage_protocol.__all__:
        assert getattr(lineage_protocol, name) is not None, name
    assert set(lineage_protocol.__all__) <= set(dir(lineage_protocol))


def test_a_name_the_package_does_not_export_is_an_attribute_error() -> None:
    try:
        lineage_protocol.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")


def test_the_wire_names_and_the_receipt_load_no_signing_module() -> None:
    probe = (
        "import sys\n"
        "from lineage_protocol import BATCH_PATH, EventType, receipt_failures\n"
        "heavy = [m for m in ('cryptography', 'rfc8785', 'lineage_protocol.signature', 'lineage_protocol.chain',"
        " 'lineage_protocol.facet_schemas') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""
