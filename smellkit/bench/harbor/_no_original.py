"""Fail the image build if the original (unsmelled) version of a file the case changed is
anywhere in the image: a dependency that pulls the repository's own released package, a cache.

A standalone script (standard library only) run at image build:
`python3 -I -S -B no_original.py ORIGINAL.sha256`. Each line of ORIGINAL.sha256 is
`<sha256>  <path>` for the original content of a file the smelly patch changed or deleted, the
path relative to the package root (`click/core.py`); every regular file of the image whose path
ends with it is hashed and compared.
"""

from __future__ import annotations

import hashlib
import os
import sys

SKIPPED = ("/proc", "/sys", "/dev")


def find_originals(manifest: str, top: str = "/") -> list[str]:
    wanted: dict[str, set[str]] = {}
    with open(manifest, encoding="utf-8") as handle:
        for line in handle:
            expected, _, path = line.rstrip("\n").partition("  ")
            if path:
                wanted.setdefault(os.path.basename(path), set()).add(f"{expected} /{path}")
    found = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = [name for name in dirs if os.path.join(folder, name) not in SKIPPED]
        for name in files:
            if name not in wanted:
                continue
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            hasher = hashlib.sha256()
            try:
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        hasher.update(block)
            except OSError:
                continue
            for item in wanted[name]:
                expected, suffix = item.split(" ", 1)
                if hasher.hexdigest() == expected and path.endswith(suffix):
                    found.append(path)
    return found


if __name__ == "__main__":
    leaks = find_originals(sys.argv[1])
    if leaks:
        print("no_original.py: the original code of the case is in the image, which would "
              "give the solution away:", *leaks, sep="\n  ", file=sys.stderr)
        sys.exit(1)
    print("no_original.py: the original code is nowhere in the image")
