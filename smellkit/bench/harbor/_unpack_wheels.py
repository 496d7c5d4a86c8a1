"""Install the verifier's wheels into one folder, byte for byte as the exporter hashed them.

A standalone script (standard library only) run once at image build:
`python3 -I -S -B unpack_wheels.py WHEELS_DIR TARGET`. Each `*.whl` of WHEELS_DIR (in name order)
is extracted into TARGET/lib the way pip lays out a pure or platform wheel, minus what pip adds
or rewrites (RECORD entries, INSTALLER, console scripts, bytecode): `<name>.data/purelib` and
`platlib` go to the top, `scripts`, `headers` and `data` are left out. So the exporter knows every
file's content in advance (`target_path`), and the manifest that arrives with /tests can list the
whole folder. Two wheels writing the same path is an error.
"""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

LIB = "lib"


def target_path(entry: str) -> str | None:
    """Where a wheel entry goes, relative to TARGET/lib; None when it is not installed."""
    if entry.endswith("/"):
        return None
    parts = entry.split("/")
    if len(parts) >= 3 and parts[0].endswith(".data"):
        if parts[1] in ("purelib", "platlib"):
            return "/".join(parts[2:])
        return None
    if ".." in parts or entry.startswith("/"):
        raise ValueError(f"unsafe wheel entry {entry!r}")
    return entry


def unpack(wheels: Path, target: Path) -> int:
    """Extract every wheel of `wheels` into `target/lib`; the number of files written."""
    lib = target / LIB
    written: dict[str, str] = {}
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            for info in archive.infolist():
                relative = target_path(info.filename)
                if relative is None:
                    continue
                if relative in written:
                    raise SystemExit(f"unpack_wheels.py: {wheel.name} and {written[relative]} "
                                     f"both write {relative}")
                written[relative] = wheel.name
                path = lib / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(archive.read(info))
                mode = (info.external_attr >> 16) & 0o777
                os.chmod(path, 0o755 if mode & 0o111 else 0o644)
    return len(written)


if __name__ == "__main__":
    count = unpack(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"unpack_wheels.py: {count} files into {sys.argv[2]}/{LIB}")
