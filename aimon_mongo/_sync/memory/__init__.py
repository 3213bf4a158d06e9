# GENERATED from aimon_mongo/_async/memory/__init__.py by scripts/gen_sync.py; do not edit.
