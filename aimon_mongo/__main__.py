"""``python -m aimon_mongo`` runs the ``aimon-mongo`` command."""

import sys

from aimon_mongo.cli import main

sys.exit(main())
