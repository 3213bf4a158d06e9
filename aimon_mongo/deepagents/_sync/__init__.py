# GENERATED from aimon_mongo/deepagents/_async/__init__.py by scripts/gen_sync.py; do not edit.
