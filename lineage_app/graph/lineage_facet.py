"""The experimental `lineage` facet (LineageFacet 1-0-0) read as lineage the graph already folds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lineage_app.graph.facets import is_deleted

# The `dependency_type` of a job -> job lineage entry, as a declared dependency (`jobDependencies`) carries it.
JOB_LINEAGE = "LINEAGE"

Named = tuple[str, str]


def _dict(value: Any) -> dict[str, Any]:
    """`value` when it is an object; else an empty one (a malformed facet is read as saying nothing)."""
    return value if isinstance(value, dict) else {}


def _facet(holder: Any) -> dict[str, Any] | None:
    found = _dict(_dict(_dict(holder).get("facets")).get("lineage"))
    return found if found and not is_deleted(found) else None


def _named(item: Any, own: Named | None = None) -> Named | None:
    """The (namespace, name) an entry or input names; a job's may be left out for the event's own job (`own`)."""
    namespace, name = item.get("namespace"), item.get("name")
    if isinstance(namespace, str) and isinstance(name, str):
        return namespace, name
    return own if namespace is None and name is None else None


def _items(holder: dict[str, Any], member: str, kind: str) -> Iterator[dict[str, Any]]:
    values = holder.get(member)
    for item in values if isinstance(values, list) else []:
        if isinstance(item, dict) and item.get("type") == kind:
            yield item


class _Lineage:
    """What one event's `lineage` facets say, gathered by target."""

    def __init__(self, own: Named) -> None:
        self.own = own
        self.sources: dict[Named, None] = {}  # datasets feeding a target: inputs of the event's job
        self.fields: dict[Named, dict[str, list[dict[str, Any]]]] = {}  # target -> field -> its source fields
        self.whole: dict[Named, list[dict[str, Any]]] = {}  # target -> source fields reaching all its fields
        self.upstream: dict[Named, None] = {}  # jobs feeding the event's job
        self.downstream: dict[Named, None] = {}  # jobs the event's job feeds

    def dataset_target(self, target: Named, entry: dict[str, Any]) -> None:
        self.fields.setdefault(target, {})
        for source in _items(entry, "inputs", "DATASET"):
            if _named(source) != target:  # a table naming itself is no input of the job writing it
                self._source(source, self.whole.setdefault(target, []))
        mapping = entry.get("fields")
        for field, sources in mapping.items() if isinstance(mapping, dict) else ():
            if isinstance(sources, dict):
                for source in _items(sources, "inputs", "DATASET"):
                    if _named(source) != target:
                        self._source(source, self.fields[target].setdefault(field, []))

    def job_target(self, entry: dict[str, Any]) -> None:
        target = _named(entry, self.own)
        for source in _items(entry, "inputs", "JOB"):
            named = _named(source, self.own)
            if named is None or target is None or named == target:
                continue
            if target == self.own:
                self.upstream[named] = None
            elif named == self.own:
                self.downstream[target] = None
        if target == self.own:
            for source in _items(entry, "inputs", "DATASET"):
                self._source(source, [])

    def _source(self, source: dict[str, Any], fields: list[dict[str, Any]]) -> None:
        named = _named(source)
        if named is None:
            return
        self.sources[named] = None
        if isinstance(source.get("field"), str):
            transformations = source.get("transformations")
            fields.append(
                {
                    "namespace": named[0],
                    "name": named[1],
                    "field": source["field"],
                    "transformations": transformations if isinstance(transformations, list) else [],
                }
            )


def explicit_lineage_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` with what its `lineage` facets state added as the lineage the graph folds: each source dataset an
    input, each target dataset an output with its field sources in its `columnLineage`, each job feeding or fed by
    the event's job a `jobDependencies` entry of type `LINEAGE`. The payload itself when it has no such facet."""
    job = payload.get("job")
    if not isinstance(job, dict) or not isinstance(job.get("namespace"), str) or not isinstance(job.get("name"), str):
        return payload
    outputs = [o for o in payload.get("outputs") or [] if isinstance(o, dict)]
    job_facet, output_facets = _facet(job), [(o, _facet(o)) for o in outputs]
    if job_facet is None and not any(facet for _, facet in output_facets):
        return payload
    lineage = _Lineage((job["namespace"], job["name"]))
    for output, facet in output_facets:
        target = _named(output)
        if facet is not None and target is not None:
            lineage.dataset_target(target, facet)
    for entry in _items(job_facet or {}, "entries", "DATASET"):
        if (target := _named(entry)) is not None:
            lineage.dataset_target(target, entry)
    for entry in _items(job_facet or {}, "entries", "JOB"):
        lineage.job_target(entry)
    return _with(payload, lineage, outputs)


def _with(payload: dict[str, Any], lineage: _Lineage, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    inputs = [i for i in payload.get("inputs") or [] if isinstance(i, dict)]
    listed = {_named(i) for i in inputs}
    inputs += [{"namespace": ns, "name": name} for ns, name in lineage.sources if (ns, name) not in listed]
    present = {_named(o) for o in outputs}
    outputs = [*outputs, *({"namespace": ns, "name": name} for ns, name in lineage.fields if (ns, name) not in present)]
    changed = {**payload, "inputs": inputs, "outputs": [_with_column_lineage(o, lineage) for o in outputs]}
    run = payload.get("run")
    if (lineage.upstream or lineage.downstream) and isinstance(run, dict):
        facets = _dict(run.get("facets"))
        declared = _dict(facets.get("jobDependencies"))
        dependencies = {**declared}
        for side, jobs in (("upstream", lineage.upstream), ("downstream", lineage.downstream)):
            added = [{"job": {"namespace": ns, "name": name}, "dependency_type": JOB_LINEAGE} for ns, name in jobs]
            dependencies[side] = [*(declared.get(side) or []), *added]
        changed["run"] = {**run, "facets": {**facets, "jobDependencies": dependencies}}
    return changed


def _with_column_lineage(output: dict[str, Any], lineage: _Lineage) -> dict[str, Any]:
    """The output with its field sources added to its `columnLineage` (a deleted one is left as sent)."""
    target = _named(output)
    fields, whole = lineage.fields.get(target or ("", ""), {}), lineage.whole.get(target or ("", ""), [])
    if not any(fields.values()) and not whole:
        return output
    facets = _dict(output.get("facets"))
    sent = _dict(facets.get("columnLineage"))
    if is_deleted(sent):
        return output
    mapped = {name: dict(value) for name, value in _dict(sent.get("fields")).items() if isinstance(value, dict)}
    for name, sources in fields.items():
        mapped.setdefault(name, {"inputFields": []})
        mapped[name]["inputFields"] = [*(mapped[name].get("inputFields") or []), *sources]
    facet = {**sent, "fields": mapped, "dataset": [*(sent.get("dataset") or []), *whole]}
    return {**output, "facets": {**facets, "columnLineage": facet}}
