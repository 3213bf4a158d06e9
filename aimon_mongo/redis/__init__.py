"""Redis session backend (placeholder; filled in below)."""
