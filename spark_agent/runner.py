"""`python -m spark_agent run job.py [args...]`: an unmodified PySpark script, with lineage."""

from __future__ import annotations

import argparse
import logging
import os
import runpy
import sys

from pyspark.sql import SparkSession

from spark_agent.lifecycle import Agent, ConnectSessionError, install

log = logging.getLogger("spark_agent")
_agents: list[Agent] = []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m spark_agent run",
        description="Run a PySpark script; every SparkSession it creates gets the agent "
        "(configured by the TRIBUTARY_* environment variables).",
    )
    parser.add_argument("script", help="path to the job script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    opts = parser.parse_args(argv)
    _instrument_session_builder()
    sys.argv = [opts.script, *opts.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(opts.script)))
    try:
        runpy.run_path(opts.script, run_name="__main__")
    except SystemExit as exc:
        _close_all(exc if exc.code not in (None, 0) else None)
        raise
    except BaseException as exc:
        _close_all(exc)
        raise
    _close_all(None)
    return 0


def _instrument_session_builder() -> None:
    """Install the agent on every session the script gets from `SparkSession.builder`."""
    original = SparkSession.Builder.getOrCreate

    def get_or_create(self: SparkSession.Builder) -> SparkSession:
        session = original(self)
        if not any(agent.session is session for agent in _agents if not agent.closed):
            try:
                _agents.append(install(session))
            except ConnectSessionError as exc:  # the job goes on, without lineage
                log.warning("tributary: no lineage for this session: %s", exc)
        return session

    SparkSession.Builder.getOrCreate = get_or_create  # type: ignore[method-assign]  # patching it is the point


def _close_all(error: BaseException | None) -> None:
    for agent in reversed(_agents):
        agent.close(error)
