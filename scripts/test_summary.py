"""Print each pytest run's counts side by side (`make test`): one line per JUnit XML file in a folder."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

NAMES = {
    "embedded": "embedded ArcadeDB (whole suite)",
    "neo4j": "Neo4j 5 (graph-touching tests)",
    "spark4": "Spark 4 (agent, example pipeline)",
}


def counts(report: Path) -> dict[str, int]:
    suites = ElementTree.parse(report).getroot()
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites.iter("testsuite"):
        for key in total:
            total[key] += int(suite.get(key, 0))
    return total


def main(folder: Path) -> int:
    reports = sorted(folder.glob("*.xml"))
    if not reports:
        print(f"no test results in {folder}")
        return 1
    print("test runs:")
    total = {"passed": 0, "failed": 0, "skipped": 0}
    for report in reports:
        c = counts(report)
        passed = c["tests"] - c["failures"] - c["errors"] - c["skipped"]
        print(
            f"  {NAMES.get(report.stem, report.stem):<36} {passed} passed, {c['failures']} failed, "
            f"{c['errors']} errors, {c['skipped']} skipped"
        )
        total["passed"] += passed
        total["failed"] += c["failures"] + c["errors"]
        total["skipped"] += c["skipped"]
    if not (folder / "neo4j.xml").exists():
        print(f"  {NAMES['neo4j']:<36} not run: see the SKIPPED line above")
    print(f"total: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 1 if total["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
