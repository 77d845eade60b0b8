"""`python -m spark_agent <command>`: run a job under the agent, make keys, verify events, relay, ship files."""

from __future__ import annotations

import argparse
import sys

COMMANDS = {
    "run": "run an unmodified PySpark script under the lineage agent",
    "keygen": "create an Ed25519 signing key pair",
    "verify": "verify the signatures of recorded events",
    "relay": "sign, buffer and forward any OpenLineage producer's events (an HTTP endpoint)",
    "ship": "send the JSON-Lines files of a directory to the server, once, resumably",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spark_agent")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for name, summary in COMMANDS.items():
        sub = commands.add_parser(name, help=summary, add_help=False)
        sub.add_argument("argv", nargs=argparse.REMAINDER)
    args, leading_options = parser.parse_known_args(argv)
    forwarded = leading_options + args.argv  # e.g. `run --help`
    if args.command == "run":
        from spark_agent.runner import main as run

        return run(forwarded)
    if args.command == "keygen":
        from spark_agent.keygen import main as keygen

        return keygen(forwarded)
    if args.command == "relay":
        from spark_agent.relay.command import main as relay

        return relay(forwarded)
    if args.command == "ship":
        from spark_agent.ship import main as ship

        return ship(forwarded)
    from spark_agent.audit import main as verify

    return verify(forwarded)


if __name__ == "__main__":
    sys.exit(main())
