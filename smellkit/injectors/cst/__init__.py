"""The libcst toolkit injectors share: find and edit definitions, imports, renames, moving code.

Only the files being edited are parsed with libcst; the rest of the repository is read as facts.
"""
