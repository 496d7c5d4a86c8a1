"""The scorer that goes into each task's image: smellkit and its dependencies as wheels, the files
they install and the hash of each.

The wheels are collected at export, so the image build fetches nothing for the scorer and the
verifier needs no network: smellkit's own wheel is made from the running package (without the
parts scoring never imports: injectors, the build pipeline, the CLI, reports), its dependencies
are downloaded once per target interpreter and platform with pip, pinned to the versions of the
exporting environment where the target has wheels for them (so the container scores with the
same libraries as `smellkit evaluate` here), and cached under `CACHE/harbor-verifier/`. The image
build extracts them with `_unpack_wheels.py`, which writes exactly the wheels' bytes, so every
file of `/opt/smellkit-verifier` and its hash are known here and go into the manifest.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from smellkit._version import __version__
from smellkit.bench.harbor._unpack_wheels import LIB, target_path
from smellkit.errors import SmellkitError
from smellkit.sandbox.checkout import locked

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

VERIFIER_DIR = "/opt/smellkit-verifier"
"""Where the scorer is installed in the image (its files under `lib/`)."""

LEFT_OUT = ("injectors", "bench", "judge", "agents", "report", "cli.py", "__main__.py")
"""Parts of smellkit scoring never imports: not shipped, so the agent cannot read how its
smell was injected in the scorer's own copy (the verifier would fail loudly if one were
needed)."""

LEFT_OUT_REQUIREMENTS = ("click", "rich")
"""Requirements only the CLI and reports use. Left out also because a benchmark's repository
may be one of them (click is SmellBench's): the scorer's copy would show the agent an
unsmelled version of the code."""

_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
PACKAGE = Path(__file__).resolve().parents[2]
"""The running smellkit package (the folder holding this subpackage's parent)."""


class BundleError(SmellkitError):
    """The scorer's wheels cannot be collected (no wheel for the target, no package index)."""

    exit_code = 1


@dataclass(frozen=True)
class Bundle:
    """The scorer for one interpreter version and platform."""

    python: str
    """The image interpreter's version, `3.11`."""
    wheels: tuple[Path, ...]
    """Every wheel, smellkit's included, in the order they are extracted (by name)."""
    files: tuple[tuple[str, str], ...]
    """(absolute path in the image, sha256) of every file the wheels install, sorted."""
    pinned_to_host: bool
    """The dependencies are the exporting environment's versions (else the newest with
    wheels for the target)."""
    key: str
    """Identifies the wheels' content: part of each task's export key."""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _package_files(root: Path) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if not path.is_file() or "__pycache__" in relative.parts or path.suffix in (".pyc",
                                                                                     ".pyo"):
            continue
        if relative.parts[0] in LEFT_OUT:
            continue
        found.append((f"smellkit/{relative.as_posix()}", path))
    return found


@lru_cache(maxsize=4)
def _own_wheel_bytes(root: Path, stamp: str) -> bytes:
    """smellkit's wheel from the package at `root` (`stamp`: its files' state, for the cache):
    deterministic (sorted entries, fixed dates), so equal code gives equal bytes."""
    del stamp
    dist_info = f"smellkit-{__version__}.dist-info"
    entries = [(name, path.read_bytes()) for name, path in _package_files(root)]
    entries.append((f"{dist_info}/METADATA",
                    f"Metadata-Version: 2.1\nName: smellkit\nVersion: {__version__}\n".encode()))
    entries.append((f"{dist_info}/WHEEL",
                    b"Wheel-Version: 1.0\nGenerator: smellkit-harbor\nRoot-Is-Purelib: true\n"
                    b"Tag: py3-none-any\n"))
    record = "".join(_record_line(name, data) + "\n" for name, data in entries)
    entries.append((f"{dist_info}/RECORD", (record + f"{dist_info}/RECORD,,\n").encode()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def own_wheel(folder: Path) -> Path:
    """smellkit's wheel (this code) in `folder`, named by its content."""
    root = PACKAGE
    stamp = hashlib.sha256("".join(
        f"{name}:{path.stat().st_mtime_ns}:{path.stat().st_size}\n"
        for name, path in _package_files(root)).encode()).hexdigest()
    data = _own_wheel_bytes(root, stamp)
    digest = hashlib.sha256(data).hexdigest()[:16]
    target = folder / f"smellkit-{__version__}+{digest}-py3-none-any.whl"
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        scratch = target.with_name(f".{target.name}.tmp")
        scratch.write_bytes(data)
        scratch.replace(target)
    return target


def requirements() -> list[str]:
    """What the scorer needs: smellkit's runtime requirements (no extras, not the CLI's
    `LEFT_OUT_REQUIREMENTS`), read from the pyproject.toml beside the running package (a source
    tree), else from its installed metadata."""
    pyproject = PACKAGE.parent / "pyproject.toml"
    found: list[str] = []
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == "smellkit":
            found = list(project.get("dependencies", []))
    if not found:
        try:
            found = importlib.metadata.requires("smellkit") or []
        except importlib.metadata.PackageNotFoundError:
            raise BundleError("smellkit's requirements are unknown: it is neither installed "
                              "nor run from its source tree") from None
    return sorted(item for item in found if not re.search(r"\bextra\s*==", item)
                  and _name(item) not in LEFT_OUT_REQUIREMENTS)


def _name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return re.sub(r"[-_.]+", "-", match.group(1)).lower() if match else ""


def _constraints() -> list[str]:
    """`name==version` of every distribution installed here (smellkit aside)."""
    pins = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower() != "smellkit" and "+" not in dist.version:
            pins[re.sub(r"[-_.]+", "-", name).lower()] = f"{name}=={dist.version}"
    return sorted(pins.values())


def machine() -> str:
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(),
                                                          platform.machine().lower())


def _platforms(arch: str) -> list[str]:
    return [f"manylinux_2_{minor}_{arch}" for minor in (28, 27, 26, 24, 17)] + [
        f"manylinux2014_{arch}", f"linux_{arch}"]


def _download(target: Path, python: str, arch: str, wanted: list[str],
              constraints: list[str] | None) -> str | None:
    """pip download into `target`; None when it worked, else pip's last lines."""
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               "--no-cache-dir", "--only-binary=:all:", "--implementation", "cp",
               "--python-version", python, "-d", str(target)]
    for name in _platforms(arch):
        command += ["--platform", name]
    if constraints:
        pins = target / "constraints.txt"
        pins.write_text("".join(f"{line}\n" for line in constraints))
        command += ["-c", str(pins)]
    done = subprocess.run([*command, *wanted], capture_output=True, text=True, timeout=1800,
                          check=False)
    if done.returncode == 0:
        return None
    return "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])


def dependency_wheels(cache: Path, python: str, arch: str | None = None
                      ) -> tuple[list[Path], bool]:
    """The dependencies' wheels for CPython `python` on Linux `arch` (cached), and whether they
    are pinned to this environment's versions."""
    arch = arch or machine()
    wanted = requirements()
    constraints = _constraints()
    key = hashlib.sha256(json.dumps([python, arch, wanted, constraints]).encode()).hexdigest()
    folder = cache / "harbor-verifier" / f"py{python}-{arch}-{key[:16]}"
    with locked(folder.with_suffix(".lock")):
        done = folder / ".complete"
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            problem = _download(folder, python, arch, wanted, constraints)
            pinned = problem is None
            if problem is not None:  # no wheel of a pinned version for the target: newest
                for item in folder.glob("*.whl"):
                    item.unlink()
                problem = _download(folder, python, arch, wanted, None)
            if problem is not None:
                raise BundleError(f"cannot collect the scorer's wheels for Python {python} "
                                  f"({arch}): {problem}",
                                  hint="the export needs the package index once per "
                                       "interpreter version (then it is cached)")
            (folder / "constraints.txt").unlink(missing_ok=True)
            done.write_text(json.dumps({"pinned_to_host": pinned}))
        pinned = bool(json.loads(done.read_text()).get("pinned_to_host"))
    return sorted(folder.glob("*.whl")), pinned


@lru_cache(maxsize=64)
def wheel_files(wheel: Path, size: int, mtime: int) -> tuple[tuple[str, str], ...]:
    """(path under lib/, sha256) of what `_unpack_wheels.py` writes from one wheel."""
    del size, mtime
    found = []
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            relative = target_path(info.filename)
            if relative is not None:
                found.append((relative, hashlib.sha256(archive.read(info)).hexdigest()))
    return tuple(found)


def prepare_bundle(cache: Path, python: str,
                   dependencies: Callable[[Path, str], tuple[list[Path], bool]] | None = None
                   ) -> Bundle:
    """The scorer for interpreter `python` (e.g. `3.11`): wheels and the files they install.
    `dependencies(cache, python)` gives the dependency wheels (default: `dependency_wheels`).
    Raises BundleError when the wheels cannot be collected, or two write the same file."""
    found, pinned = (dependencies or dependency_wheels)(cache, python)
    wheels = sorted([*found, own_wheel(cache / "harbor-verifier" / "own")],
                    key=lambda path: path.name)
    files: dict[str, str] = {}
    owners: dict[str, str] = {}
    for wheel in wheels:
        info = wheel.stat()
        for relative, digest in wheel_files(wheel, info.st_size, info.st_mtime_ns):
            if relative in owners:
                raise BundleError(f"{wheel.name} and {owners[relative]} both install "
                                  f"{relative}")
            owners[relative] = wheel.name
            files[f"{VERIFIER_DIR}/{LIB}/{relative}"] = digest
    key = hashlib.sha256("".join(f"{path} {digest}\n" for path, digest in sorted(
        files.items())).encode()).hexdigest()[:16]
    return Bundle(python=python, wheels=tuple(wheels), files=tuple(sorted(files.items())),
                  pinned_to_host=pinned, key=key)


def link_or_copy(source: Path, target: Path) -> None:
    """A hard link where the file system allows it (the wheels are large and never change),
    else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
