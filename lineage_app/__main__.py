"""Django's command line for Tributary: `manage.py` in a source checkout, `tributary-server` (or
`python -m lineage_app`) where the server is installed from its wheel (packaging/server)."""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineage_app.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
