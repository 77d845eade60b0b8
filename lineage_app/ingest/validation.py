"""Turn a request body into a checked OpenLineage event, or a clear error naming what is wrong."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import rfc8785
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from spark_agent.canonical import canonical_json

SPEC_DIR = Path(__file__).parent / "openlineage_spec"
SPEC_ID = "https://openlineage.io/spec/2-0-2/OpenLineage.json"

EVENT_DEFINITIONS = (("run", "RunEvent"), ("dataset", "DatasetEvent"), ("job", "JobEvent"))

# Which facet map a standard facet belongs to, from the suffix of its definition's name.
FACET_SECTIONS = (
    ("InputDatasetFacet", "inputFacets"),
    ("OutputDatasetFacet", "outputFacets"),
    ("DatasetFacet", "facets.dataset"),
    ("JobFacet", "facets.job"),
    ("RunFacet", "facets.run"),
)


class EventInvalid(Exception):
    """The body is not an acceptable OpenLineage event; `path` says where, `message` what."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path or "$", "message": self.message}


@dataclass(frozen=True, kw_only=True)
class CheckedEvent:
    """An event that passed every check, with the fields the event log indexes."""

    payload: dict[str, Any]
    canonical: bytes
    content_hash: str
    kind: str
    event_type: str
    event_time: datetime
    run_id: str
    job_namespace: str
    job_name: str


# How canonical JSON writes U+0000; only an event whose bytes hold it is searched for the character.
_NUL_ESCAPE = b"\\u0000"


def event_check(payload: Any, *, path_prefix: str = "") -> CheckedEvent:
    """Validate one decoded event against the OpenLineage 2-0-2 schema and its standard facets."""
    if not isinstance(payload, dict):
        raise EventInvalid("an event must be a JSON object", path=path_prefix)
    kind = _event_kind(payload)
    # The compiled (Rust) validators answer "valid?" far faster; only a failure pays for the
    # reference validator, which names the failing path precisely.
    error = None if _fast_valid(payload, kind) else _reference_error(payload, kind)
    if error is not None:
        message = f"{error.message}: {error.cause}" if error.cause else error.message
        raise EventInvalid(message, path=_join(path_prefix, _dotted(_error_path(error))))
    try:
        canonical = canonical_json(payload)
    except rfc8785.CanonicalizationError as exc:
        where = _dotted(_first_path(payload, _uncanonical) or [])
        raise EventInvalid(f"cannot be canonicalised (RFC 8785): {exc}", path=_join(path_prefix, where)) from exc
    if _NUL_ESCAPE in canonical and (where := _first_path(payload, _holds_nul)) is not None:
        raise EventInvalid("contains a NUL character (U+0000), which the event log cannot store",
                           path=_join(path_prefix, _dotted(where)))
    run = payload.get("run") or {}
    job = payload.get("job") or {}
    return CheckedEvent(
        payload=payload,
        canonical=canonical,
        content_hash=hashlib.sha256(canonical).hexdigest(),
        kind=kind,
        event_type=payload.get("eventType", "") if kind == "run" else "",
        event_time=_parse_time(payload["eventTime"]),
        run_id=run.get("runId", "").lower(),
        job_namespace=job.get("namespace", ""),
        job_name=job.get("name", ""),
    )


def _reference_error(payload: dict[str, Any], kind: str) -> ValidationError | None:
    error = _first_error(_validators()[kind].iter_errors(payload))
    return error if error is not None else _first_error(_facet_errors(payload))


def _fast_valid(payload: dict[str, Any], kind: str) -> bool:
    event_validators, facet_validators = _compiled_validators()
    if not event_validators[kind].is_valid(payload):
        return False
    for section, _, facets in _facet_maps(payload):
        for key, value in facets.items():
            validator = facet_validators.get((section, key))
            deleted = isinstance(value, dict) and value.get("_deleted") is True
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
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = next((p for p in error.validator_value if p not in error.instance), None)
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


def _facet_errors(payload: dict[str, Any]) -> Iterator[ValidationError]:
    """Errors of the standard facets an event carries, with paths from the event's root."""
    facet_validators = _facet_validators()
    for section, base, facets in _facet_maps(payload):
        for key, value in facets.items():
            validator = facet_validators.get((section, key))
            if validator is None or (isinstance(value, dict) and value.get("_deleted") is True):
                continue  # a deletion marker carries no content to check
            for error in validator.iter_errors({key: value}):
                error.path.extendleft(reversed(base))
                yield error


def _facet_maps(payload: dict[str, Any]) -> Iterator[tuple[str, list[Any], dict[str, Any]]]:
    def facets_of(obj: Any, key: str) -> dict[str, Any]:
        value = obj.get(key) if isinstance(obj, dict) else None
        return value if isinstance(value, dict) else {}

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
    store = {}
    for path in [SPEC_DIR / "OpenLineage.json", *sorted((SPEC_DIR / "facets").glob("*.json"))]:
        schema = json.loads(path.read_text())
        store[schema["$id"]] = schema
    return store


@cache
def _compiled_validators() -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    """jsonschema-rs validators for the events and the standard facets; they agree with the
    reference validator on every format: ours checked, "uri" left unchecked."""
    store = _schema_store()
    options: dict[str, Any] = {
        "retriever": lambda uri: store[uri.split("#")[0]],
        "validate_formats": True,
        "formats": {**{name: _passes(check) for name, check in FORMAT_CHECKS.items()}, "uri": lambda _: True},
    }
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
def _registry() -> Registry:
    return Registry().with_resources(
        (schema_id, Resource.from_contents(schema)) for schema_id, schema in _schema_store().items()
    )


def _reference_validator(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema, registry=_registry(), format_checker=_format_checker())


@cache
def _validators() -> dict[str, Draft202012Validator]:
    return {
        kind: _reference_validator({"$ref": f"{SPEC_ID}#/$defs/{definition}"})
        for kind, definition in EVENT_DEFINITIONS
    }


@cache
def _facet_validators() -> dict[tuple[str, str], Draft202012Validator]:
    store = _schema_store()
    return {key: _reference_validator(store[schema_id]) for key, schema_id in _facet_schema_ids().items()}
