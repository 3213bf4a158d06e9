"""``python -m aimon_mongo.schema_gate``."""

import sys

from aimon_mongo.schema_gate.cli import main

sys.exit(main())
