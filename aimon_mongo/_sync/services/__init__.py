# GENERATED from aimon_mongo/_async/services/__init__.py by scripts/gen_sync.py; do not edit.
