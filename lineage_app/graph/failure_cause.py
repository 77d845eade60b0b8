"""A failed run's root cause and its class, read from its error message and stack trace (pure, no I/O).

Spark reports one failure as a chain: a Python traceback ending in `Py4JJavaError`, a
`SparkException: Job aborted due to stage failure … Lost task …: <exception>`, then
`Caused by:` after `Caused by:`. The root cause is the innermost exception of that chain; its
class says what kind of failure it was. See `failure_cause`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

OUT_OF_MEMORY = "out_of_memory"
CANCELLED = "cancelled"
PERMISSION = "permission"
MISSING_INPUT = "missing_input"
SCHEMA = "schema"
DATA_VALIDATION = "data_validation"
# A run that reported failing data-quality checks (`graph.quality`); decided by the run fold, not by a rule here.
DATA_QUALITY = "data_quality"
UNKNOWN = "unknown"
# In the order the rules are tried: the first that matches decides (data quality comes before them all).
CLASSIFICATIONS = (DATA_QUALITY, OUT_OF_MEMORY, CANCELLED, PERMISSION, MISSING_INPUT, SCHEMA, DATA_VALIDATION, UNKNOWN)

MAX_CAUSE = 300  # characters of the one-line cause

# An exception's name as printed: `ValueError`, `java.io.FileNotFoundException`,
# `org.apache.spark.scheduler.ExecutorLostFailure`, `KeyboardInterrupt`.
_NAME = r"(?:[A-Za-z_$][\w$]*\.)*(?:[A-Za-z_$][\w$]*(?:Error|Exception|Failure|Throwable)|KeyboardInterrupt|SystemExit)"
# Hadoop names a server-side exception inside its RPC wrapper: `RemoteException(<name>): <message>`.
_HEADER = re.compile(rf"^(?P<name>{_NAME}(?:\({_NAME}\))?)(?::(?P<message>.*)|(?P<rest>\s+\(.*))?$")
_CAUSED_BY = "Caused by: "
# Spark 3: "Lost task 0.0 in stage 29.0 (TID 21) (10.0.0.5 executor 3): <exception>";
# Spark 2: "Lost task 3.3 in stage 4.0 (TID 87, host, executor 9): <exception>".
_LOST_TASK = re.compile(r"Lost task \S+ in stage \S+ \([^)]*\)(?: \([^)]*\))?: (?P<exception>.+)$")
# Python prints a chain's root cause first, then one of these, then the exception it led to.
_PYTHON_CHAIN = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)


@dataclass(frozen=True, kw_only=True)
class Thrown:
    """One exception of a chain: its name as printed and its message (one line, may be empty)."""

    name: str
    message: str
    separator: str = ": "  # " " when the name is followed by a parenthesis (`ExecutorLostFailure (…) Reason: …`)

    @property
    def simple_name(self) -> str:
        """`AccessControlException` for `org.apache.hadoop.ipc.RemoteException(…AccessControlException)`."""
        return self.name.rstrip(")").rsplit("(", 1)[-1].rsplit(".", 1)[-1]

    def line(self) -> str:
        return f"{self.name}{self.separator}{self.message}" if self.name and self.message else self.name or self.message


@dataclass(frozen=True, kw_only=True)
class FailureCause:
    """What made a run fail: `cause` (one line, or None when nothing was reported) and `classification`."""

    cause: str | None
    classification: str


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(";").strip()


def _bounded(line: str) -> str:
    return line if len(line) <= MAX_CAUSE else line[: MAX_CAUSE - 1].rstrip() + "…"


def _is_frame(line: str) -> bool:
    return not line or line[0].isspace() or line.startswith("...")


def _header(line: str, following: list[str]) -> Thrown | None:
    """The exception a line names, if it is one (`following` supplies an empty message's next line)."""
    found = _HEADER.match(line.rstrip())
    if found is None:
        return None
    message = (found["message"] if found["message"] is not None else found["rest"] or "").strip()
    if not message:  # `ParseException: ` then the message on the next line; PySpark does the same
        message = next(
            (
                ahead.strip()
                for ahead in following[:3]
                if ahead.strip() and not ahead.lstrip().startswith(("at ", "File ", "Traceback"))
            ),
            "",
        )
    return Thrown(name=found["name"], message=_one_line(message), separator=": " if found["rest"] is None else " ")


def _chain_of_block(lines: list[str]) -> list[Thrown]:
    """The exceptions one block names, outermost first (Java prints a cause after what it caused)."""
    chain: list[Thrown] = []
    for index, raw in enumerate(lines):
        line = raw.removeprefix(_CAUSED_BY)
        if line.startswith(": "):  # Py4J puts the Java exception on the line after Py4JJavaError
            line = line[2:]
        if _is_frame(line):
            continue
        thrown = _header(line, lines[index + 1 : index + 4])
        if thrown is None:
            continue
        chain.append(thrown)
        lost = _LOST_TASK.search(line)
        if lost is not None:  # the executor's exception, inside the driver's "Job aborted …"
            chain.append(_header(lost["exception"], []) or Thrown(name="", message=_one_line(lost["exception"])))
    return chain


def exception_chain(text: str) -> list[Thrown]:
    """Every exception `text` names, outermost first, so the root cause is the last."""
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip() in _PYTHON_CHAIN:
            blocks.append([])
        else:
            blocks[-1].append(line)
    chain: list[Thrown] = []
    for block in reversed(blocks):  # Python's last block is the outermost exception
        chain.extend(_chain_of_block(block))
    return chain


# ---- classification: (classification, exception names, message pattern), tried in order ----


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


_OOM = (
    _names("OutOfMemoryError", "SparkOutOfMemoryError", "MemoryError"),
    re.compile(
        r"java heap space|gc overhead limit exceeded|direct buffer memory|exceeding (?:\w+ )?memory limits"
        r"|unable to acquire \d+ bytes of memory|not enough memory to build and broadcast"
        r"|oomkilled|possible container oom|out of memory",
        re.I,
    ),
)
_CANCELLED = (
    _names(
        "InterruptedException",
        "TaskKilledException",
        "CancellationException",
        "KeyboardInterrupt",
        "TimeoutException",
        "TimeoutError",
        "SocketTimeoutException",
        "ClosedByInterruptException",
    ),
    re.compile(
        r"\bcancell?ed\b|\btask killed\b|\bkilled (?:by|via|on request)|\binterrupted\b"
        r"|sparkcontext (?:was|has been) shut ?down|stopped sparkcontext|\btimed out\b|\btimeout\b",
        re.I,
    ),
)
_PERMISSION = (
    _names(
        "AccessDeniedException",
        "AccessControlException",
        "SecurityException",
        "PermissionError",
        "AuthorizationException",
        "AccessDenied",
    ),
    re.compile(
        r"access denied|permission denied|\b403 forbidden|status code: 403\b|\(403\)|http 403\b"
        r"|not authori[sz]ed|insufficient (?:privileges|permissions)|\bforbidden\b",
        re.I,
    ),
)
_MISSING_INPUT = (
    _names(
        "FileNotFoundException",
        "SparkFileNotFoundException",
        "NoSuchFileException",
        "FileNotFoundError",
        "NoSuchTableException",
        "NoSuchDatabaseException",
        "NoSuchNamespaceException",
        "NoSuchPartitionException",
    ),
    re.compile(
        r"\[PATH_NOT_FOUND\]|path does not exist|no such file or directory|\[TABLE_OR_VIEW_NOT_FOUND\]"
        r"|table or view not found|\[SCHEMA_NOT_FOUND\]|database '[^']*' not found"
        r"|specified (?:key|bucket) does not exist|\b(?:file|path|table|directory) \S+ does not exist",
        re.I,
    ),
)
_SCHEMA = (
    _names("AnalysisException", "ParseException", "SchemaColumnConvertNotSupportedException"),
    re.compile(
        r"\[UNRESOLVED_|cannot resolve|\[PARSE_SYNTAX_ERROR\]|mismatched input|schema mismatch"
        r"|\[CANNOT_MERGE_|\[INCOMPATIBLE_DATA_|cannot write incompatible data|\[DATATYPE_MISMATCH"
        r"|parquet column cannot be converted|failed to merge fields|\[FIELD_NOT_FOUND\]"
        r"|\[AMBIGUOUS_REFERENCE\]|found duplicate column",
        re.I,
    ),
)
# Checked against the root cause only: a wrapper (`RuntimeException`, …) says nothing about the data.
_DATA_VALIDATION = (
    _names("RuntimeException", "AssertionError", "ValueError", "PythonException", "ArithmeticException"),
    re.compile(
        r"\[USER_RAISED_EXCEPTION\]|\[CAST_INVALID_INPUT\]|\[DIVIDE_BY_ZERO\]|\[ARITHMETIC_OVERFLOW\]"
        r"|assertion failed",
        re.I,
    ),
)
_CUSTOM_VALIDATION = re.compile(r"(?:Validation|Quality|Expectation|Check)(?:Error|Exception|Failure|Failed)$")

Rule = tuple[frozenset[str], re.Pattern[str]]


def _matches(rule: Rule, thrown: Thrown) -> bool:
    names, pattern = rule
    return thrown.simple_name in names or bool(pattern.search(thrown.line()))


def _any(rule: Rule) -> Callable[[list[Thrown]], bool]:
    return lambda chain: any(_matches(rule, thrown) for thrown in chain)


def _user_raised(chain: list[Thrown]) -> bool:
    root = chain[-1]
    from_udf = any(thrown.simple_name == "PythonException" for thrown in chain)
    return from_udf or _matches(_DATA_VALIDATION, root) or bool(_CUSTOM_VALIDATION.search(root.simple_name))


_RULES: tuple[tuple[str, Callable[[list[Thrown]], bool]], ...] = (
    (OUT_OF_MEMORY, _any(_OOM)),  # an OOM wrapped in anything is an OOM
    (CANCELLED, _any(_CANCELLED)),
    (PERMISSION, _any(_PERMISSION)),
    (MISSING_INPUT, _any(_MISSING_INPUT)),  # before schema: a missing table is an AnalysisException too
    (SCHEMA, _any(_SCHEMA)),
    (DATA_VALIDATION, _user_raised),
)


def failure_classify(*, chain: list[Thrown]) -> str:
    """The class of a failure from its exception chain (outermost first): the first rule that matches."""
    if not chain:
        return UNKNOWN
    return next((name for name, rule in _RULES if rule(chain)), UNKNOWN)


def failure_cause(*, message: str | None, stack_trace: str | None) -> FailureCause:
    """The root cause of a failure and its class, from a run's error message and stack trace.

    The cause is the innermost exception the stack trace (else the message) names, as
    `<exception>: <message>` on one line; a Python exception raised in a UDF is named rather
    than Spark's `PythonException` around it. Text naming no exception is its own first line.
    """
    for text in (stack_trace, message):
        chain = exception_chain(text or "")
        if chain:
            return FailureCause(cause=_bounded(chain[-1].line()), classification=failure_classify(chain=chain))
    # The first line that still says something once folded to one line (";" alone says nothing).
    first = next((_one_line(line) for line in (message or stack_trace or "").splitlines() if _one_line(line)), "")
    if not first:
        return FailureCause(cause=None, classification=UNKNOWN)
    thrown = Thrown(name="", message=first)
    return FailureCause(cause=_bounded(thrown.message), classification=failure_classify(chain=[thrown]))
