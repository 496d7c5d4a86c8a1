"""Sandboxes for running a target repository's own tests: fetch its source, build one virtualenv
per repository, map tests to the functions they cover, and run selected tests on a case's copy,
locally (default) or in a Docker container without network.
"""
