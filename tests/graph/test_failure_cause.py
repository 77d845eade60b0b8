"""A failed run's root cause and classification, read from real-shaped Spark, Hadoop and Python traces."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lineage_app.graph.failure_cause import (
    CANCELLED,
    CLASSIFICATIONS,
    DATA_VALIDATION,
    MAX_CAUSE,
    MISSING_INPUT,
    OUT_OF_MEMORY,
    PERMISSION,
    SCHEMA,
    UNKNOWN,
    FailureCause,
    exception_chain,
    failure_cause,
)

TRACES = Path(__file__).with_name("traces")
NEGATIVE_AMOUNT = "java.lang.RuntimeException: negative amount in order 250"


def traced(case: str) -> FailureCause:
    return failure_cause(
        message=(TRACES / f"{case}.message.txt").read_text(), stack_trace=(TRACES / f"{case}.stack.txt").read_text()
    )


CASES = [
    ("example_validate_orders_app", NEGATIVE_AMOUNT, DATA_VALIDATION),
    ("example_validate_orders_action", NEGATIVE_AMOUNT, DATA_VALIDATION),
    ("oom_heap_space_action", "java.lang.OutOfMemoryError: Java heap space", OUT_OF_MEMORY),
    (
        "yarn_container_killed_app",
        "ExecutorLostFailure (executor 23 exited caused by one of the running tasks) Reason: Container killed by "
        "YARN for exceeding physical memory limits. 12.4 GB of 12 GB physical memory used. Consider boosting "
        "spark.executor.memoryOverhead.",
        OUT_OF_MEMORY,
    ),
    ("driver_oom_shutdown_action", "java.lang.OutOfMemoryError: GC overhead limit exceeded", OUT_OF_MEMORY),
    (
        "unresolved_column_app",
        "pyspark.errors.exceptions.captured.AnalysisException: [UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or "
        "function parameter with name `amount` cannot be resolved. Did you mean one of the following? [`order_id`].",
        SCHEMA,
    ),
    (
        "parse_error_action",
        "org.apache.spark.sql.catalyst.parser.ParseException: [PARSE_SYNTAX_ERROR] Syntax error at or near "
        "'SELEC'.(line 1, pos 0)",
        SCHEMA,
    ),
    (
        "table_not_found_app",
        "pyspark.errors.exceptions.captured.AnalysisException: [TABLE_OR_VIEW_NOT_FOUND] The table or view "
        "`sales`.`orders_daily` cannot be found. Verify the spelling and correctness of the schema and catalog.",
        MISSING_INPUT,
    ),
    (
        "path_not_found_app",
        "pyspark.errors.exceptions.captured.AnalysisException: [PATH_NOT_FOUND] Path does not exist: "
        "file:/tmp/ff/gdata/lake/bronze/orders.",
        MISSING_INPUT,
    ),
    (
        "file_not_found_app",
        "org.apache.spark.SparkFileNotFoundException: File file:/tmp/ff/gdata/lake/silver/orders/"
        "part-00000-67a2249e-ea98-4319-b1c8-5d3d924ff733-c000.snappy.parquet does not exist",
        MISSING_INPUT,
    ),
    (
        "s3a_access_denied_app",
        "com.amazonaws.services.s3.model.AmazonS3Exception: Forbidden (Service: Amazon S3; Status Code: 403; "
        "Error Code: 403 Forbidden; Request ID: 7QK2M9ZB0T1E5W3X; S3 Extended Request ID: "
        "uTj0bFQ1n5yJmQ8rO7fM2a1x9vW3kP6dZ4cL0sH8eG2iR5tY7uB1nA3oC6qE9wX=; Proxy: null), S3 Extended Request ID: "
        "uTj0bFQ1n5yJmQ…",
        PERMISSION,
    ),  # cut at `MAX_CAUSE`
    (
        "hdfs_access_control_action",
        "org.apache.hadoop.ipc.RemoteException(org.apache.hadoop.security.AccessControlException): Permission "
        'denied: user=etl, access=WRITE, inode="/warehouse/sales.db/orders":hive:hadoop:drwxr-xr-x',
        PERMISSION,
    ),
    ("python_udf_app", "ValueError: cannot convert amount 7 to cents", DATA_VALIDATION),
    ("python_udf_action", "ValueError: cannot convert amount 7 to cents", DATA_VALIDATION),
    ("python_udf_collect_app", "AssertionError: unknown country code in customer 3", DATA_VALIDATION),
    ("python_assertion_app", "AssertionError: 12 orders without a customer", DATA_VALIDATION),
    (
        "python_chained_app",
        "FileNotFoundError: [Errno 2] No such file or directory: '/data/in/orders-2026-01-08.csv'",
        MISSING_INPUT,
    ),
    (
        "job_cancelled_app",
        "org.apache.spark.SparkException: Job 5 cancelled as part of cancellation of all jobs",
        CANCELLED,
    ),
    (
        "stage_cancelled_action",
        "org.apache.spark.SparkException: Job 9 cancelled part of cancelled job group nightly-orders-2026-01-08",
        CANCELLED,
    ),
    (
        "broadcast_timeout_action",
        "java.util.concurrent.TimeoutException: Futures timed out after [300 seconds]",
        CANCELLED,
    ),
]


@pytest.mark.parametrize(("case", "cause", "classification"), CASES, ids=[case[0] for case in CASES])
def test_each_trace_is_headlined_by_its_root_cause_and_classified(case: str, cause: str, classification: str) -> None:
    assert traced(case) == FailureCause(cause=cause, classification=classification)


def test_every_trace_fixture_is_tested() -> None:
    cases = {path.name.split(".")[0] for path in TRACES.glob("*.txt")}
    assert cases == {case for case, _, _ in CASES}


def test_the_example_pipelines_failure_is_its_innermost_cause_not_the_sixty_lines_of_spark_around_it() -> None:
    stack = (TRACES / "example_validate_orders_app.stack.txt").read_text()
    chain = [thrown.line() for thrown in exception_chain(stack)]
    assert chain[0] == "py4j.protocol.Py4JJavaError: An error occurred while calling o607.parquet."
    assert chain[1].startswith("org.apache.spark.SparkException: Job aborted due to stage failure")
    assert chain[2].startswith("org.apache.spark.SparkException: [TASK_WRITE_FAILED]")  # the lost task's
    assert chain[-1] == NEGATIVE_AMOUNT
    assert len(stack.splitlines()) > 60


def test_the_message_alone_is_enough_when_no_stack_trace_was_sent() -> None:
    message = (TRACES / "example_validate_orders_app.message.txt").read_text()
    assert failure_cause(message=message, stack_trace=None) == FailureCause(
        cause=NEGATIVE_AMOUNT, classification=DATA_VALIDATION
    )
    assert failure_cause(message=message, stack_trace="") == failure_cause(message=message, stack_trace=None)


def test_an_out_of_memory_error_wins_over_the_cancellation_it_caused() -> None:
    shutdown = (TRACES / "driver_oom_shutdown_action.stack.txt").read_text()
    assert "cancelled because SparkContext was shut down" in shutdown
    without_oom = shutdown.split("Caused by:")[0]
    assert failure_cause(message=None, stack_trace=without_oom).classification == CANCELLED
    assert failure_cause(message=None, stack_trace=shutdown).classification == OUT_OF_MEMORY


def test_an_out_of_memory_error_wrapped_in_spark_exceptions_is_an_out_of_memory_error() -> None:
    stack = (
        "org.apache.spark.SparkException: Job aborted due to stage failure: Task 2 in stage 3.0 failed 4 times, "
        "most recent failure: Lost task 2.3 in stage 3.0 (TID 40) (10.0.0.8 executor 2): "
        "org.apache.spark.SparkException: [TASK_WRITE_FAILED] Task failed while writing rows to s3a://lake/gold.\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.taskFailedWhileWritingRowsError("
        "QueryExecutionErrors.scala:775)\n"
        "Caused by: org.apache.spark.memory.SparkOutOfMemoryError: Unable to acquire 65536 bytes of memory, got 0\n"
        "\tat org.apache.spark.memory.MemoryConsumer.throwOom(MemoryConsumer.java:157)\n"
    )
    assert failure_cause(message=None, stack_trace=stack) == FailureCause(
        cause="org.apache.spark.memory.SparkOutOfMemoryError: Unable to acquire 65536 bytes of memory, got 0",
        classification=OUT_OF_MEMORY,
    )


def test_a_container_killed_for_memory_is_out_of_memory_not_cancelled() -> None:
    assert "killed" in (TRACES / "yarn_container_killed_app.message.txt").read_text()
    assert traced("yarn_container_killed_app").classification == OUT_OF_MEMORY


def test_a_missing_table_is_missing_input_although_spark_raises_it_as_an_analysis_exception() -> None:
    assert "AnalysisException" in (TRACES / "table_not_found_app.stack.txt").read_text()
    assert traced("table_not_found_app").classification == MISSING_INPUT
    assert traced("unresolved_column_app").classification == SCHEMA


def test_a_python_udfs_exception_is_named_rather_than_sparks_python_exception_around_it() -> None:
    chain = exception_chain((TRACES / "python_udf_action.stack.txt").read_text())
    assert "org.apache.spark.api.python.PythonException" in [thrown.name for thrown in chain]
    assert chain[-1].line() == "ValueError: cannot convert amount 7 to cents"


def test_any_exception_raised_in_a_python_udf_is_data_validation() -> None:
    stack = (
        (TRACES / "python_udf_action.stack.txt")
        .read_text()
        .replace("ValueError: cannot convert amount 7 to cents", "KeyError: 'EUR'")
    )
    assert failure_cause(message=None, stack_trace=stack) == FailureCause(
        cause="KeyError: 'EUR'", classification=DATA_VALIDATION
    )
    outside_a_udf = "Traceback (most recent call last):\n  File \"job.py\", line 3, in <module>\nKeyError: 'EUR'\n"
    assert failure_cause(message=None, stack_trace=outside_a_udf).classification == UNKNOWN


def test_a_python_chain_is_rooted_in_its_first_exception() -> None:
    chain = exception_chain((TRACES / "python_chained_app.stack.txt").read_text())
    assert [thrown.simple_name for thrown in chain] == ["RuntimeError", "FileNotFoundError"]


def test_a_number_like_403_in_a_data_message_is_not_a_permission_failure() -> None:
    cause = failure_cause(message="java.lang.RuntimeException: negative amount in order 403", stack_trace=None)
    assert cause == FailureCause(
        cause="java.lang.RuntimeException: negative amount in order 403", classification=DATA_VALIDATION
    )


def test_causes_indented_under_suppressed_exceptions_are_not_the_root_cause() -> None:
    stack = (
        "java.io.IOException: could not commit the write\n"
        "\tat org.apache.spark.internal.io.FileCommitProtocol.commitJob(FileCommitProtocol.scala:90)\n"
        "\tSuppressed: java.lang.IllegalStateException: close after abort\n"
        "\t\tat org.apache.parquet.hadoop.ParquetFileWriter.end(ParquetFileWriter.java:1100)\n"
        "\tCaused by: java.lang.InterruptedException\n"
        "Caused by: java.nio.file.AccessDeniedException: /lake/gold/_temporary: Permission denied\n"
        "\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:90)\n"
    )
    assert failure_cause(message=None, stack_trace=stack) == FailureCause(
        cause="java.nio.file.AccessDeniedException: /lake/gold/_temporary: Permission denied", classification=PERMISSION
    )


def test_an_error_naming_no_exception_is_headlined_by_its_first_line_and_left_unknown() -> None:
    assert failure_cause(message="\n  boom\nsecond line", stack_trace=None) == FailureCause(
        cause="boom", classification=UNKNOWN
    )
    assert failure_cause(message="Permission denied writing /lake", stack_trace=None).classification == PERMISSION


def test_no_error_at_all_has_no_cause() -> None:
    assert failure_cause(message=None, stack_trace=None) == FailureCause(cause=None, classification=UNKNOWN)
    assert failure_cause(message="  \n", stack_trace="") == FailureCause(cause=None, classification=UNKNOWN)


def test_a_long_message_is_cut_to_one_line_of_bounded_length() -> None:
    cause = failure_cause(message="ValueError: " + "x " * 500 + "\nmore", stack_trace=None)
    assert cause.cause is not None and len(cause.cause) <= MAX_CAUSE and cause.cause.endswith("x…")
    assert cause.cause.startswith("ValueError: x x")
    assert "\n" not in cause.cause


@given(message=st.text(), stack_trace=st.text())
def test_any_text_gives_one_bounded_line_and_a_known_classification(message: str, stack_trace: str) -> None:
    cause = failure_cause(message=message, stack_trace=stack_trace)
    assert cause.classification in CLASSIFICATIONS
    if cause.cause is not None:
        assert cause.cause and len(cause.cause) <= MAX_CAUSE
        assert not any(char in cause.cause for char in "\n\r")
