"""``python -m aimon_mongo`` runs the ``aimon-mongo`` command."""

from aimon_mongo.cli_entry import run

run()
