"""Turn a request body into a checked OpenLineage event, or a clear error naming what is wrong."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import rfc8785
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from lineage_app.graph.identity import hierarchy_conflict
from lineage_protocol import canonical_json, content_hash, facet_schema, is_heartbeat

SPEC_DIR = Path(__file__).parent / "openlineage_spec"
SPEC_ID = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
# Tributary's own run facets whose content the server reads, checked like standard ones (their schemas come
# with the agent's distribution, which the server installs for its protocol).
AGENT_FACET_SCHEMAS = ("TributaryCountersRunFacet.json", "TributaryStreamingRunFacet.json")

EVENT_DEFINITIONS = (("run", "RunEvent"), ("dataset", "DatasetEvent"), ("job", "JobEvent"))

# Which facet map a standard facet belongs to, from the suffix of its definition's name.
FACET_SECTIONS = (
    ("InputDatasetFacet", "inputFacets"),
    ("OutputDatasetFacet", "outputFacets"),
    ("DatasetFacet", "facets.dataset"),
    ("JobFacet", "facets.job"),
    ("RunFacet", "facets.run"),
)
# The spec definition every facet of a facet map must satisfy, whether standard or custom.
GENERIC_FACET_DEFINITIONS = {
    "facets.run": "RunFacet",
    "facets.job": "JobFacet",
    "facets.dataset": "DatasetFacet",
    "inputFacets": "InputDatasetFacet",
    "outputFacets": "OutputDatasetFacet",
}
# Only job and dataset facets may be deleted (`_deleted`); a deletion marker carries no content to check.
DELETABLE_SECTIONS = frozenset({"facets.job", "facets.dataset"})


class EventInvalid(Exception):
    """The body is not an acceptable OpenLineage event; `path` says where, `message` what."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path or "$", "message": self.message}


@dataclass(frozen=True, kw_only=True)
class FacetWarning:
    """A facet that fails its schema: the event is kept whole, and applied without the facet at `at`.

    `path` / `message` are what the sender is told (the facet, and what is wrong inside it);
    `detail_path` / `detail_message` are the precise error a strict facet policy refuses the event with.
    """

    path: str
    message: str
    at: tuple[str | int, ...]
    detail_path: str
    detail_message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}

    def stored(self) -> dict[str, Any]:
        """As the event log keeps it: `at` names the facet unambiguously (facet keys may hold dots)."""
        return {"path": self.path, "message": self.message, "at": list(self.at)}

    def as_error(self) -> EventInvalid:
        return EventInvalid(self.detail_message, path=self.detail_path)


@dataclass(frozen=True, kw_only=True)
class CheckedEvent:
    """An event whose core passed every check, with the fields the event log indexes and the
    warnings of the facets that did not (empty for a fully valid event)."""

    payload: dict[str, Any]
    canonical: bytes
    content_hash: str
    kind: str
    event_type: str
    event_time: datetime
    run_id: str
    job_namespace: str
    job_name: str
    warnings: tuple[FacetWarning, ...] = field(default=())

    @property
    def policy_namespace(self) -> str:
        """The namespace policies are matched against: the job's, or the dataset's for a DatasetEvent."""
        if self.kind == "dataset":
            return str((self.payload.get("dataset") or {}).get("namespace", ""))
        return self.job_namespace

    def warnings_stored(self) -> list[dict[str, Any]] | None:
        return [w.stored() for w in self.warnings] if self.warnings else None


# How canonical JSON writes U+0000; only an event whose bytes hold it is searched for the character.
_NUL_ESCAPE = b"\\u0000"


def event_check(payload: Any, *, path_prefix: str = "") -> CheckedEvent:
    """Validate one decoded event against the OpenLineage 2-0-2 schema and its standard facets.

    The core (event type, times, run id, producer, schema URL, job and dataset identity) is
    strict: `EventInvalid`. A facet, standard or custom, that fails its schema is a warning:
    the event stands, and is applied without that facet (invariant 8).
    """
    if not isinstance(payload, dict):
        raise EventInvalid("an event must be a JSON object", path=path_prefix)
    kind = _event_kind(payload)
    warnings: tuple[FacetWarning, ...] = ()
    # The compiled (Rust) validators answer "valid?" far faster; only a failure pays for the
    # reference validator, which names the failing path precisely.
    if not _fast_valid(payload, kind):
        error = _core_error(payload, kind)
        if error is not None:
            message = f"{error.message}: {error.cause}" if error.cause else error.message
            raise EventInvalid(message, path=_join(path_prefix, _dotted(_error_path(error))))
        warnings = tuple(_facet_warnings(payload, path_prefix))
    warnings += tuple(_hierarchy_warnings(payload, path_prefix, warned={w.at for w in warnings}))
    try:
        canonical = canonical_json(payload)
    except rfc8785.CanonicalizationError as exc:
        where = _dotted(_first_path(payload, _uncanonical) or [])
        raise EventInvalid(f"cannot be canonicalised (RFC 8785): {exc}", path=_join(path_prefix, where)) from exc
    if _NUL_ESCAPE in canonical and (nul_path := _first_path(payload, _holds_nul)) is not None:
        raise EventInvalid(
            "contains a NUL character (U+0000), which the event log cannot store",
            path=_join(path_prefix, _dotted(nul_path)),
        )
    run = payload.get("run") or {}
    job = payload.get("job") or {}
    if kind == "run" and is_heartbeat(payload):
        # A producer's heartbeat (docs/ledger.md): logged and verified, recorded in the ledger, never a run.
        kind, run = "heartbeat", {}
    return CheckedEvent(
        payload=payload,
        canonical=canonical,
        content_hash=content_hash(canonical),
        kind=kind,
        event_type=payload.get("eventType", "") if kind == "run" else "",
        event_time=_parse_time(payload["eventTime"]),
        run_id=run.get("runId", "").lower(),
        job_namespace=job.get("namespace", ""),
        job_name=job.get("name", ""),
        warnings=warnings,
    )


def payload_without(payload: dict[str, Any], locations: Iterable[Iterable[str | int]]) -> dict[str, Any]:
    """`payload` without the members at `locations` (the `at` of stored warnings); copies only
    what it changes, so the stored payload is never altered. A location that is not there is skipped."""
    result = payload
    for location in locations:
        *parents, last = list(location)
        result = _copy_without(result, parents, last)
    return result


def _copy_without(node: Any, parents: list[str | int], last: str | int) -> Any:
    if not parents:
        if isinstance(node, dict) and isinstance(last, str) and last in node:
            return {k: v for k, v in node.items() if k != last}
        return node
    step, rest = parents[0], parents[1:]
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        return {**node, step: _copy_without(node[step], rest, last)}
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        return [*node[:step], _copy_without(node[step], rest, last), *node[step + 1 :]]
    return node


def _core_error(payload: dict[str, Any], kind: str) -> ValidationError | None:
    """The first error of the event with every facet map left out: what no facet can excuse."""
    core = _without_facet_maps(payload)
    if _compiled_validators()[0][kind].is_valid(core):
        return None
    return _first_error(_validators()[kind].iter_errors(core))


def _without_facet_maps(payload: dict[str, Any]) -> dict[str, Any]:
    def bare(obj: Any, *maps: str) -> Any:
        return {k: v for k, v in obj.items() if k not in maps} if isinstance(obj, dict) else obj

    core = dict(payload)
    for member in ("run", "job", "dataset"):
        if member in core:
            core[member] = bare(core[member], "facets")
    for side, extra in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        if isinstance(core.get(side), list):
            core[side] = [bare(dataset, "facets", extra) for dataset in core[side]]
    return core


def _facet_warnings(payload: dict[str, Any], path_prefix: str) -> Iterator[FacetWarning]:
    """One warning per facet (or facet map) that fails its schema, in the order the event holds them."""
    compiled_generic, compiled_standard = _compiled_facet_checks()
    for section, base, facets in _facet_maps(payload, with_invalid=True):
        if not isinstance(facets, dict):
            yield _warning(base, [], f"{facets!r} is not of type 'object'", [], path_prefix)
            continue
        for key, value in facets.items():
            error = None
            if not compiled_generic[section].is_valid(value):
                error = _first_error(_generic_facet_validators()[section].iter_errors(value))
                inner = list(error.absolute_path) if error is not None else []
            else:
                validator = compiled_standard.get((section, key))
                deleted = section in DELETABLE_SECTIONS and value.get("_deleted") is True
                if validator is not None and not deleted and not validator.is_valid({key: value}):
                    error = _first_error(_facet_validators()[(section, key)].iter_errors({key: value}))
                    inner = list(error.absolute_path)[1:] if error is not None else []
            if error is not None:
                message = f"{error.message}: {error.cause}" if error.cause else error.message
                yield _warning([*base, key], inner, message, _missing(error), path_prefix)


def _hierarchy_warnings(
    payload: dict[str, Any], path_prefix: str, *, warned: set[tuple[Any, ...]]
) -> Iterator[FacetWarning]:
    """A warning for each dataset's `hierarchy` facet that contradicts the dataset's name (`hierarchy_conflict`):
    the name wins, and the facet is left out of the graph like one failing its schema (docs/identity.md)."""
    located: list[tuple[list[str | int], Any]] = [(["dataset"], payload.get("dataset"))]
    for side in ("inputs", "outputs"):
        datasets = payload.get(side)
        located += [([side, i], d) for i, d in enumerate(datasets if isinstance(datasets, list) else [])]
    for base, dataset in located:
        at = [*base, "facets", "hierarchy"]
        if not isinstance(dataset, dict) or {tuple(at), (*base, "facets")} & warned:
            continue  # the facet (or its map) already failed its schema
        conflict = hierarchy_conflict(dataset)
        if conflict is not None:
            yield _warning(at, [], conflict, [], path_prefix)


def _warning(at: list[Any], inner: list[Any], message: str, missing: list[str], path_prefix: str) -> FacetWarning:
    return FacetWarning(
        path=_join(path_prefix, _dotted(at)),
        message=f"{_dotted(inner)}: {message}" if inner else message,
        at=tuple(at),
        detail_path=_join(path_prefix, _dotted([*at, *inner, *missing])),
        detail_message=message,
    )


def _missing(error: ValidationError) -> list[str]:
    """For a missing property, the property itself, so a strict answer names `run.runId`, not `run`."""
    return _error_path(error)[len(error.absolute_path) :]


def _fast_valid(payload: dict[str, Any], kind: str) -> bool:
    event_validators, facet_validators = _compiled_validators()
    if not event_validators[kind].is_valid(payload):
        return False
    for section, _, facets in _facet_maps(payload):
        for key, value in facets.items():
            validator = facet_validators.get((section, key))
            deleted = section in DELETABLE_SECTIONS and isinstance(value, dict) and value.get("_deleted") is True
            if validator is not None and not deleted and not validator.is_valid({key: value}):
                return False
    return True


def _event_kind(payload: dict[str, Any]) -> str:
    if "run" in payload:
        return "run"
    if "dataset" in payload:
        return "dataset"
    if "job" in payload:
        return "job"
    raise EventInvalid("not an OpenLineage event: expected a 'run', 'job' or 'dataset' member")


def _first_error(errors: Iterator[ValidationError]) -> ValidationError | None:
    # The shallowest error is the one a person can act on first.
    error = min(errors, key=lambda e: (len(e.absolute_path), str(e.absolute_path)), default=None)
    # The spec wraps each facet map in a one-branch `anyOf`, whose own error would name only
    # the map and quote all of it: name the failing facet inside instead.
    while error is not None and error.context:
        error = min(error.context, key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    return error


def _error_path(error: ValidationError) -> list[Any]:
    """Where the error is; for a missing property, the property itself (`run.runId`, not `run`)."""
    path = list(error.absolute_path)
    required = error.validator_value
    if error.validator == "required" and isinstance(error.instance, dict) and isinstance(required, list):
        missing = next((p for p in required if p not in error.instance), None)
        if missing is not None:
            path.append(missing)
    return path


def _first_path(value: Any, refused: Callable[[Any], bool], path: tuple[Any, ...] = ()) -> list[Any] | None:
    """Where the first member name or leaf value that `refused` holds for is (a member name
    ends the path, written so the error body can show it), or None."""
    if isinstance(value, dict):
        for key, item in value.items():
            if refused(key):
                return [*path, key.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\u0000")]
            if (found := _first_path(item, refused, (*path, key))) is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if (found := _first_path(item, refused, (*path, index))) is not None:
                return found
    elif refused(value):
        return list(path)
    return None


def _uncanonical(value: Any) -> bool:
    """What RFC 8785 cannot encode: an integer beyond +-(2**53 - 1), text with a lone surrogate."""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) > 2**53 - 1
    return isinstance(value, str) and not _encodable(value)


def _holds_nul(value: Any) -> bool:
    """Text holding U+0000, which PostgreSQL cannot store."""
    return isinstance(value, str) and "\x00" in value


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _facet_maps(payload: dict[str, Any], *, with_invalid: bool = False) -> Iterator[tuple[str, list[Any], Any]]:
    """Every facet map of the event: (section, path, map). An absent map is `{}`; one that is not
    an object is `{}` too, unless `with_invalid` asks for it as it is."""

    def facets_of(obj: Any, key: str) -> Any:
        if not isinstance(obj, dict) or key not in obj:
            return {}
        value = obj[key]
        return value if isinstance(value, dict) or with_invalid else {}

    yield "facets.run", ["run", "facets"], facets_of(payload.get("run"), "facets")
    yield "facets.job", ["job", "facets"], facets_of(payload.get("job"), "facets")
    if isinstance(payload.get("dataset"), dict):
        yield "facets.dataset", ["dataset", "facets"], facets_of(payload["dataset"], "facets")
    for side, extra in (("inputs", "inputFacets"), ("outputs", "outputFacets")):
        datasets = payload.get(side)
        for index, dataset in enumerate(datasets if isinstance(datasets, list) else []):
            yield "facets.dataset", [side, index, "facets"], facets_of(dataset, "facets")
            yield extra, [side, index, extra], facets_of(dataset, extra)


def _parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value).astimezone(UTC)


def _dotted(path: Any) -> str:
    return ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return f"{prefix}{path}" if path.startswith("[") else f"{prefix}.{path}"


def _check_aware_datetime(value: object) -> None:
    if not isinstance(value, str):
        return
    if "T" not in value and "t" not in value:
        raise ValueError("expected an ISO 8601 date-time such as 2024-01-31T12:00:00Z")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("a timezone is required, e.g. 2024-01-31T12:00:00Z or +02:00")
    try:
        parsed.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("out of range once converted to UTC") from exc


def _check_uuid(value: object) -> None:
    # Only the canonical 8-4-4-4-12 form: `uuid.UUID` also takes URNs, braces and bare hex,
    # which would give one run several ids (and overflow the 36-character run_id column).
    if isinstance(value, str) and (len(value) != 36 or str(uuid.UUID(value)) != value.lower()):
        raise ValueError("expected a UUID such as 0176a8c2-fe01-7439-87e6-56a1a1b4029f")


FORMAT_CHECKS = {"date-time": _check_aware_datetime, "uuid": _check_uuid}


def _format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    for name, check in FORMAT_CHECKS.items():
        checker.checks(name, raises=ValueError)(lambda value, check=check: check(value) is None)
    return checker


def _passes(check: Callable[[object], None]) -> Callable[[object], bool]:
    def predicate(value: object) -> bool:
        try:
            check(value)
        except ValueError:
            return False
        return True

    return predicate


@cache
def _schema_store() -> dict[str, dict[str, Any]]:
    """Every bundled schema by its `$id`: the spec's cross-file references resolve offline."""
    spec = [
        json.loads(path.read_text())
        for path in [SPEC_DIR / "OpenLineage.json", *sorted((SPEC_DIR / "facets").glob("*.json"))]
    ]
    return {schema["$id"]: schema for schema in [*spec, *map(facet_schema, AGENT_FACET_SCHEMAS)]}


def _compiled_options() -> dict[str, Any]:
    store = _schema_store()
    return {
        "retriever": lambda uri: store[uri.split("#")[0]],
        "validate_formats": True,
        "formats": {**{name: _passes(check) for name, check in FORMAT_CHECKS.items()}, "uri": lambda _: True},
    }


@cache
def _compiled_validators() -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """jsonschema-rs validators for the events and the standard facets; they agree with the
    reference validator on every format: ours checked, "uri" left unchecked."""
    store, options = _schema_store(), _compiled_options()
    events = {
        kind: jsonschema_rs.Draft202012Validator({"$ref": f"{SPEC_ID}#/$defs/{definition}"}, **options)
        for kind, definition in EVENT_DEFINITIONS
    }
    facets = {
        section_key: jsonschema_rs.Draft202012Validator(store[schema_id], **options)
        for section_key, schema_id in _facet_schema_ids().items()
    }
    return events, facets


@cache
def _facet_schema_ids() -> dict[tuple[str, str], str]:
    """Which bundled schema checks each standard facet, by (facet map, facet key)."""
    found: dict[tuple[str, str], str] = {}
    for schema_id, schema in _schema_store().items():
        for key, ref in schema.get("properties", {}).items():
            if "$ref" not in ref:
                continue  # the combined lineage facet names no single section
            definition = ref["$ref"].rsplit("/", 1)[-1]
            section = next((s for suffix, s in FACET_SECTIONS if definition.endswith(suffix)), None)
            if section is not None:
                found[(section, key)] = schema_id
    return found


@cache
def _compiled_facet_checks() -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """jsonschema-rs validators of the facet every map requires (by section), and of the standard facets."""
    options = _compiled_options()
    generic = {
        section: jsonschema_rs.Draft202012Validator({"$ref": f"{SPEC_ID}#/$defs/{definition}"}, **options)
        for section, definition in GENERIC_FACET_DEFINITIONS.items()
    }
    return generic, _compiled_validators()[1]


@cache
def _generic_facet_validators() -> dict[str, Draft202012Validator]:
    return {
        section: _reference_validator({"$ref": f"{SPEC_ID}#/$defs/{definition}"})
        for section, definition in GENERIC_FACET_DEFINITIONS.items()
    }


@cache
def _registry() -> Registry:
    return Registry().with_resources(
        (schema_id, Resource.from_contents(schema)) for schema_id, schema in _schema_store().items()
    )


def _reference_validator(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema, registry=_registry(), format_checker=_format_checker())


@cache
def _validators() -> dict[str, Draft202012Validator]:
    return {
        kind: _reference_validator({"$ref": f"{SPEC_ID}#/$defs/{definition}"}) for kind, definition in EVENT_DEFINITIONS
    }


@cache
def _facet_validators() -> dict[tuple[str, str], Draft202012Validator]:
    store = _schema_store()
    return {key: _reference_validator(store[schema_id]) for key, schema_id in _facet_schema_ids().items()}
