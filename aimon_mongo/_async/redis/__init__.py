"""Redis backend, async flavour (the source of the generated ``_sync`` twin)."""
