"""`python -m spark_agent.relay`: the same as `python -m spark_agent relay`."""

from __future__ import annotations

import sys

from spark_agent.relay.command import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
