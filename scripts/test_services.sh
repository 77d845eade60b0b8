#!/usr/bin/env bash
# Make sure what the test suite talks to is here: a Redis on REDIS_URL (started if it is a
# local one that does not answer), Java for the local Spark tests and Debian's chromium for the
# browser tests (driven by Playwright; never a browser download), Debian's docker-compose for
# validating docker-compose.yml. The graph engine is
# started by the tests themselves (embedded ArcadeDB), unless NEO4J_URI names one.
set -euo pipefail
redis_url=${REDIS_URL:-redis://127.0.0.1:6379/0}
port=$(python3 -c "from urllib.parse import urlparse; print(urlparse('$redis_url').port or 6379)")
need() { command -v "$1" >/dev/null 2>&1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null; }

need redis-server || apt_install redis-server
need java || apt_install openjdk-17-jre-headless
[ -x /usr/bin/chromium ] || apt_install chromium
# docker-compose validates docker-compose.yml (`config`) without a Docker engine (tests/deploy).
need docker-compose || apt_install docker-compose
if ! redis-cli -p "$port" ping >/dev/null 2>&1; then
  echo "starting redis-server on 127.0.0.1:$port"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no >/dev/null
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
