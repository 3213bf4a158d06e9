# GENERATED from aimon_mongo/services/_async/__init__.py by scripts/gen_sync.py; do not edit.
