#!/usr/bin/env python
"""Django's command-line entry point for Tributary in a source checkout; an installed server has the
same commands as `tributary-server` (both run lineage_app.__main__)."""

from __future__ import annotations

from lineage_app.__main__ import main

if __name__ == "__main__":
    main()
