"""``python -m aimon_mongo`` runs the ``aimon-mongo`` command."""

from aimon_mongo._console import run

run()
