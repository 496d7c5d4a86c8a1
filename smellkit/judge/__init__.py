"""The LLM judge (filled below)."""
