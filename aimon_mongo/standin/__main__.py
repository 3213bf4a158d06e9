"""``python -m aimon_mongo.standin serve [--port P] [--data DIR]``: the local MongoDB stand-in."""

import sys

from aimon_mongo.standin.cli import main

sys.exit(main())
