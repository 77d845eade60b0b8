"""`python -m spark_agent run job.py` (`tributary-agent run`): run an unmodified PySpark script under the agent;
`python -m spark_agent audit verify BUNDLE`: verify an offline audit bundle, with no server.

The tools that are not Spark's have their own commands: `python -m lineage_relay` and `lineage_relay.ship`,
`python -m lineage_protocol.keygen` and `lineage_protocol.verify`."""

from __future__ import annotations

import argparse
import sys

COMMANDS = {
    "run": "run an unmodified PySpark script under the lineage agent",
    "audit": "verify an offline audit bundle (`audit verify BUNDLE`) with no server",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spark_agent")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for name, summary in COMMANDS.items():
        sub = commands.add_parser(name, help=summary, add_help=False)
        sub.add_argument("argv", nargs=argparse.REMAINDER)
    args, leading_options = parser.parse_known_args(argv)
    forwarded = leading_options + args.argv  # e.g. `run --help`
    if args.command == "audit":
        from spark_agent.audit import main as audit

        return audit(forwarded)
    from spark_agent.runner import main as run

    return run(forwarded)


if __name__ == "__main__":
    sys.exit(main())
