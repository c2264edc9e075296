"""The checklist engine: pure parsing, states, progress and marker edits (no pygls, no I/O)."""
