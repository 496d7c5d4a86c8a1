"""Record what a Harbor task's verifier runs on, so `integrity.sh` can check it later.

A standalone script (standard library only, Python 3.10+) shipped in each task's `environment/`.
It runs twice, with the image's own interpreter (`python3 -I -S -B record.py ...`):

* at export, in a throwaway container of the base image (when Docker and the image are there):
  the interpreter, its standard library and the tools are then pinned by the manifest that
  arrives with /tests, which the agent never had;
* at image build, after everything is installed: the record (`/opt/smellkit-build.*`) covers the
  same files plus the project's environment. It lives in the image, so it only catches changes
  made without also rewriting it; with `--expect` the build also fails if the base image is not
  the one pinned at export.

What is recorded (`--system`): the interpreter (resolved), every file of its standard library
(`site-packages`/`dist-packages` and `__pycache__` left out: `-S` keeps them off sys.path, and
bytecode is deleted before each run), the tools the verifier runs, the shared libraries all of
those load (from `ldd`), the `sys.path` entries and interpreter landmarks that do not exist
(a planted `python311.zip`, `pyvenv.cfg` or `lib/` beside the interpreter would change what it
imports). With `--env DIR`: every file under DIR. A folder recorded whole is a *root*: it must
hold exactly the recorded files. A symbolic link is recorded by its target's content when it
points at a file, else by its target text.

Output: `--out PREFIX` writes PREFIX.sha256 (sha256sum's format), .roots (`ROOT [PRUNED...]`),
.links (`PATH<TAB>TARGET`), .absent and .python; `--json` prints the same as one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from typing import Any

TOOLS = ("bash", "sh", "env", "rm", "mkdir", "mktemp", "readlink", "find", "sha256sum", "git",
         "patch")
"""What test.sh, integrity.sh and the scorer run besides the interpreter (git and patch apply
and diff; the rest checks and cleans)."""

SEARCH_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
STDLIB_PRUNED = ("site-packages", "dist-packages")
ALWAYS_PRUNED = "__pycache__"
_BAD_NAME = re.compile(r"[\n\r\\]")


class Record:
    def __init__(self) -> None:
        self.hashes: dict[str, str] = {}
        self.roots: dict[str, tuple[str, ...]] = {}
        self.links: dict[str, str] = {}
        self.absent: set[str] = set()
        self.python = ""

    def hash_file(self, path: str) -> None:
        if _BAD_NAME.search(path):
            raise SystemExit(f"record.py: cannot record a name with a newline or backslash: "
                             f"{path!r}")
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        self.hashes[path] = digest.hexdigest()

    def add_root(self, root: str, pruned: tuple[str, ...] = ()) -> None:
        root = os.path.realpath(root)
        if not os.path.isdir(root):
            return
        self.roots[root] = pruned
        skip = {ALWAYS_PRUNED, *pruned}
        for folder, dirs, files in os.walk(root):
            for name in sorted(dirs):
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    self.add_entry(path)
            dirs[:] = sorted(name for name in dirs if name not in skip
                             and not os.path.islink(os.path.join(folder, name)))
            for name in sorted(files):
                self.add_entry(os.path.join(folder, name))

    def add_entry(self, path: str) -> None:
        if os.path.islink(path) and not os.path.isfile(path):
            self.links[path] = os.readlink(path)
        elif os.path.isfile(path):
            self.hash_file(path)
        else:
            raise SystemExit(f"record.py: {path} is neither a file nor a link")


def _libraries(binaries: list[str]) -> set[str]:
    """The shared libraries (and the loader) the binaries load, resolved by `ldd`."""
    ldd = shutil.which("ldd", path=SEARCH_PATH)
    found: set[str] = set()
    if ldd is None:
        return found
    for start in range(0, len(binaries), 64):
        done = subprocess.run([ldd, *binaries[start:start + 64]], capture_output=True,
                              text=True, check=False)
        for line in done.stdout.splitlines():
            match = re.search(r"(?:=>\s+)?(/\S+)\s+\(0x[0-9a-f]+\)", line)
            if match:
                found.add(os.path.realpath(match.group(1)))
    return found


def _is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def record_system(record: Record, tools: tuple[str, ...]) -> None:
    python = os.path.realpath(sys.executable)
    record.python = python
    record.hash_file(python)
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib"):
        record.add_root(paths[key], STDLIB_PRUNED)
    for entry in sys.path:
        if entry and not os.path.exists(entry):
            record.absent.add(entry)
    here = os.path.dirname(python)
    stem = os.path.basename(python)
    version = f"{sys.version_info[0]}{sys.version_info[1]}"
    for landmark in (os.path.join(here, "pyvenv.cfg"),
                     os.path.join(os.path.dirname(here), "pyvenv.cfg"),
                     os.path.join(here, "lib"), os.path.join(here, "pybuilddir.txt"),
                     os.path.join(here, f"{stem}._pth"),
                     os.path.join(here, f"python{version}._pth")):
        if not os.path.lexists(landmark):
            record.absent.add(landmark)
    binaries = [python]
    for name in tools:
        found = shutil.which(name, path=SEARCH_PATH)
        if found is not None:
            real = os.path.realpath(found)
            record.hash_file(real)
            if _is_elf(real):
                binaries.append(real)
    binaries += sorted(path for path in record.hashes if path.endswith(".so")
                       and any(path.startswith(root + "/") for root in record.roots))
    for library in sorted(_libraries(binaries)):
        if os.path.isfile(library):
            record.hash_file(library)


def as_json(record: Record) -> dict[str, Any]:
    return {"sha256": sorted([path, digest] for path, digest in record.hashes.items()),
            "roots": sorted([root, list(pruned)] for root, pruned in record.roots.items()),
            "links": sorted([path, target] for path, target in record.links.items()),
            "absent": sorted(record.absent), "python": record.python,
            "version": f"{sys.version_info[0]}.{sys.version_info[1]}"}


def rooted(data: dict[str, Any], root: str) -> dict[str, Any]:
    """The recording with `root` (a folder standing for `/`) taken off every path."""
    def strip(path: str) -> str:
        return "/" + os.path.relpath(path, root) if path.startswith(root + "/") else path

    return {**data, "sha256": [[strip(path), digest] for path, digest in data["sha256"]],
            "roots": [[strip(path), pruned] for path, pruned in data["roots"]],
            "links": [[strip(path), target] for path, target in data["links"]],
            "absent": [strip(path) for path in data["absent"]],
            "python": strip(data["python"]) if data["python"] else ""}


def write(data: dict[str, Any], prefix: str) -> None:
    files = {
        ".sha256": "".join(f"{digest}  {path}\n" for path, digest in data["sha256"]),
        ".roots": "".join(" ".join([root, *pruned]) + "\n" for root, pruned in data["roots"]),
        ".links": "".join(f"{path}\t{target}\n" for path, target in data["links"]),
        ".absent": "".join(f"{path}\n" for path in data["absent"]),
    }
    if data["python"]:
        files[".python"] = f"{data['python']}\n"
    for suffix, text in files.items():
        with open(prefix + suffix, "w", encoding="utf-8") as handle:
            handle.write(text)


def differences(pinned: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """How the current recording departs from the pinned one (files pinned at export)."""
    found = []
    current = dict((path, digest) for path, digest in now["sha256"])
    for path, digest in pinned["sha256"]:
        if current.get(path) != digest:
            found.append(f"{path}: {'missing' if path not in current else 'differs'}")
    for root, _ in pinned["roots"]:
        before = {path for path, _ in pinned["sha256"] if path.startswith(root + "/")}
        after = {path for path in current if path.startswith(root + "/")}
        found += [f"{path}: not in the pinned base image" for path in sorted(after - before)]
    links = dict((path, target) for path, target in now["links"])
    found += [f"{path}: link differs" for path, target in pinned["links"]
              if links.get(path) != target]
    found += [f"{path}: exists" for path in pinned["absent"] if os.path.lexists(path)]
    if pinned["python"] and pinned["python"] != now["python"]:
        found.append(f"interpreter {now['python']} is not the pinned {pinned['python']}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--system", action="store_true")
    parser.add_argument("--env", action="append", default=[], metavar="DIR")
    parser.add_argument("--tool", action="append", default=None, metavar="NAME")
    parser.add_argument("--out", metavar="PREFIX")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--expect", metavar="PINNED_JSON")
    parser.add_argument("--root", metavar="DIR",
                        help="record paths as if DIR were / (to try the checks outside an image)")
    args = parser.parse_args(argv)
    record = Record()
    if args.system:
        record_system(record, tuple(args.tool) if args.tool is not None else TOOLS)
    for folder in args.env:
        record.add_root(folder)
    if args.expect:
        with open(args.expect, encoding="utf-8") as handle:
            problems = differences(json.load(handle), as_json(record))
        if problems:
            print("record.py: the base image is not the one this task was exported with "
                  "(export again against this image):", *problems[:20], sep="\n  ",
                  file=sys.stderr)
            return 1
    data = as_json(record)
    if args.root:
        data = rooted(data, os.path.realpath(args.root))
    if args.out:
        write(data, args.out)
    if args.json:
        json.dump(data, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
