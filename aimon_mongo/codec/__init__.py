"""Pure functions between value types and stored shapes. No driver I/O happens here."""
