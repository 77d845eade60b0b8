#!/usr/bin/env bash
# Restart a Neo4j that ../shared/neo4j/serve.sh runs in the background, to time the first reads after a restart
# (docs/scale.md, "The first run after a restart"): stop the pid in PIDFILE (serve.sh's, and wait for its server
# JVM too), start `serve.sh DIR PORT PASSWORD` again in the background (its pid into PIDFILE, its output appended to
# DIR/serve.log; NEO4J_HEAP and NEO4J_PAGECACHE pass through), and wait until Bolt answers on PORT.
#   bench/neo4j_restart.sh PIDFILE DIR PORT PASSWORD
# An empty or missing PIDFILE only starts the server.
set -euo pipefail
pidfile=${1:?usage: neo4j_restart.sh PIDFILE DIR PORT PASSWORD} dir=${2:?} port=${3:?} password=${4:?}
here=$(cd "$(dirname "$0")/.." && pwd)
serve=${NEO4J_SERVE:-$here/../shared/neo4j/serve.sh}
python=${PYTHON:-$here/.venv/bin/python}
pid=$(cat "$pidfile" 2>/dev/null || true)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
  child=$(pgrep -P "$pid" || true)
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null || { [ -n "$child" ] && kill -0 "$child" 2>/dev/null; }; do sleep 0.5; done
fi
setsid bash "$serve" "$dir" "$port" "$password" >>"$dir/serve.log" 2>&1 &
echo $! >"$pidfile"
until "$python" -c "
import sys
from neo4j import GraphDatabase
with GraphDatabase.driver('bolt://127.0.0.1:$port', auth=('neo4j', sys.argv[1])) as driver:
    driver.execute_query('RETURN 1')  # the default database (serve.sh's: lineage) answers
" "$password" 2>/dev/null; do sleep 1; done
echo "Neo4j answers on bolt://127.0.0.1:$port (pid $(cat "$pidfile"))"
