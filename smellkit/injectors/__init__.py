"""Deterministic smell injectors: candidate discovery, libcst codemods, injection records."""
