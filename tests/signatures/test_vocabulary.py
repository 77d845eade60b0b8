"""The server's verification vocabulary follows the protocol's: every status is ranked."""

from __future__ import annotations

from lineage_app.signatures.selectors import SEVERITY
from lineage_protocol import VerificationStatus


def test_every_status_has_a_severity_so_the_worst_of_any_statuses_can_be_found() -> None:
    assert set(VerificationStatus) <= set(SEVERITY)
