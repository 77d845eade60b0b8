"""`python -m lineage_relay` (`tributary-relay`): run the edge relay; see `lineage_relay.command`."""

from __future__ import annotations

import sys

from lineage_relay.command import main

if __name__ == "__main__":
    sys.exit(main())
