# GENERATED from aimon_mongo/_async/redis/__init__.py by scripts/gen_sync.py; do not edit.
"""Redis backend, sync flavour (the source of the generated ``_sync`` twin)."""
