# GENERATED from aimon_mongo/langgraph/_async/__init__.py by scripts/gen_sync.py; do not edit.
