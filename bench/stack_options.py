"""Options every benchmark shares: measure the embedded shape (default) or an external graph engine and database."""

from __future__ import annotations

import argparse


def stack_options_add(parser: argparse.ArgumentParser) -> None:
    """Add `--graph-uri/--user/--password/--graph-database` and `--database-url` to `parser`."""
    group = parser.add_argument_group("stack (default: the embedded graph engine and a private SQLite database)")
    group.add_argument(
        "--graph-uri", default=None, help="Bolt URI of an external graph engine (Neo4j 5); default: embedded"
    )
    group.add_argument("--user", default="neo4j", help="graph user, with --graph-uri")
    group.add_argument("--password", default="", help="graph password, with --graph-uri")
    group.add_argument("--graph-database", default="neo4j", help="graph database name, with --graph-uri")
    group.add_argument(
        "--database-url",
        default=None,
        help="relational database, say postgres://postgres@127.0.0.1:5432/bench (migrated by the benchmark; "
        "use an empty one); default: a private SQLite file",
    )


def stack_options_env(args: argparse.Namespace) -> dict[str, str]:
    """The settings environment the options ask for (empty for the embedded defaults)."""
    env = {}
    if args.graph_uri:
        env.update(
            {
                "NEO4J_URI": args.graph_uri,
                "NEO4J_USER": args.user,
                "NEO4J_PASSWORD": args.password,
                "NEO4J_DATABASE": args.graph_database,
            }
        )
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    return env


def stack_options_describe(args: argparse.Namespace) -> str:
    """One line naming the stack measured, for the benchmark's output."""
    graph = args.graph_uri or "embedded graph engine"
    return f"graph: {graph}; database: {args.database_url or 'private SQLite'}"
