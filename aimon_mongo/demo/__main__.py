"""``python -m aimon_mongo.demo``: the end-to-end demo (what ``./dev demo`` runs)."""

import sys

from aimon_mongo.demo import main

sys.exit(main())
