"""`python -m spark_agent run job.py` (`tributary-agent run`): run an unmodified PySpark script under the agent.

The tools that are not Spark's have their own commands: `python -m lineage_relay` and `lineage_relay.ship`,
`python -m lineage_protocol.keygen` and `lineage_protocol.verify`."""

from __future__ import annotations

import argparse
import sys

COMMANDS = {
    "run": "run an unmodified PySpark script under the lineage agent",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spark_agent")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for name, summary in COMMANDS.items():
        sub = commands.add_parser(name, help=summary, add_help=False)
        sub.add_argument("argv", nargs=argparse.REMAINDER)
    args, leading_options = parser.parse_known_args(argv)
    forwarded = leading_options + args.argv  # e.g. `run --help`
    from spark_agent.runner import main as run

    return run(forwarded)


if __name__ == "__main__":
    sys.exit(main())
