"""Writing one Harbor task directory per case (the layout is in `smellkit.bench.harbor`)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import stat
import sys
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from smellkit._version import __version__
from smellkit.bench.harbor.bundle import (
    VERIFIER_DIR,
    Bundle,
    BundleError,
    dependency_wheels,
    link_or_copy,
    prepare_bundle,
)
from smellkit.bench.harbor.image import (
    APP,
    UNPACK_SDIST,
    default_base,
    dockerfile,
    image_python,
)
from smellkit.bench.harbor.pin import BasePin, inspect_base
from smellkit.bench.harbor.scripts import instruction, solve_script, test_script
from smellkit.config import RepoSpec
from smellkit.errors import UsageError
from smellkit.formats.smellbench import to_row, to_smellbench
from smellkit.injectors.patches import apply_patch, patched_paths
from smellkit.models import Case, InstructionSetting
from smellkit.sandbox.checkout import COPY_EXCLUDES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

EXPORT_FORMAT = 2
"""Bumped when the task layout changes: a kept task of another format is written again."""
CASE_FORMAT = 1
"""`tests/case.json`'s format (the verifier reads `{format, case, spec, setting}`)."""

TESTS_LIST = "tests.sha256"
"""Every other file of tests/ and its hash: /tests must hold exactly these when the verifier
runs (a file the agent left in /tests before Harbor's upload would otherwise be read along)."""

HERE = Path(__file__).parent
SKIPPED_NAMES = COPY_EXCLUDES | {".smellkit-complete"}

DependencySource = Callable[[Path, str], tuple[list[Path], bool]]


@dataclass(frozen=True)
class HarborOptions:
    """How tasks are exported (`smellkit build --base-image/--base-python/--allow-host`)."""

    base_image: str | None = None
    """The image's `FROM` (default `python:X.Y-slim` from the spec). It must run `python3` with
    the venv module; git, patch and findutils are installed with apt-get when missing."""
    base_python: str | None = None
    """The base image's Python version (`3.11`), when it cannot be inspected here."""
    allow_hosts: tuple[str, ...] = ()
    """Hosts the agent may reach besides the model's API (Harbor adds the API host it knows)."""
    setting: InstructionSetting = "guided"
    setup_network: Literal["agent", "public"] = "agent"
    """The network while the environment is set up and between phases: the agent's (default;
    an installed agent that downloads itself needs its hosts allowed) or `public` (installed
    agents just work, but Harbor restores this policy between the agent's phase and the
    verifier's, when a process the agent left could fetch the original code)."""
    pin_base: bool = True
    """Pin the base image's interpreter and tools at export when Docker and the image are
    here (see `pin`)."""
    network: Literal["closed", "public"] = "closed"
    """`closed`: the policies above. `public`: every phase's network is open (`--network
    public`), for Harbor environments that cannot enforce a policy. Harbor 0.26's docker
    environment enforces `no-network` and allowlists with a sidecar it builds from Docker Hub
    images, and refuses such a task when it cannot. The agent can then download the original
    code; say so when reporting results."""

    def __post_init__(self) -> None:
        if self.network == "public" and self.allow_hosts:
            raise UsageError("an allowlist (--allow-host) means nothing with --network public: "
                             "every host is reachable", hint="give one or the other")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def toml_text(tables: dict[str, Any]) -> str:
    """A small TOML writer for flat tables of strings, numbers, booleans and lists (enough for
    task.toml; the standard library only reads TOML)."""
    lines: list[str] = []
    for key, value in tables.items():
        if not isinstance(value, dict):
            lines.append(f"{key} = {toml_value(value)}")
    for key, value in tables.items():
        if isinstance(value, dict):
            lines.append(f"\n[{key}]")
            lines.extend(f"{name} = {toml_value(item)}" for name, item in value.items())
    return "\n".join(lines) + "\n"


def task_config(case: Case, spec: RepoSpec, *, allow_hosts: Sequence[str] = (),
                setup_network: str = "agent", base_image: str | None = None,
                system_pinned: bool = False, export_key: str = "",
                network: str = "closed") -> dict[str, Any]:
    """The task.toml tables (Harbor 0.26's `TaskConfig`). Network: the agent's is `no-network`
    (Harbor still opens the model API host it knows) or the allowlist; the verifier's is
    `no-network`; the environment's baseline (setup, and between phases) is the agent's policy,
    or `public` with `setup_network="public"`. With `network="public"` every phase is public."""
    policy: dict[str, Any] = {"network_mode": "no-network"}
    if allow_hosts:
        policy = {"network_mode": "allowlist", "allowed_hosts": list(allow_hosts)}
    if network == "public":
        policy = {"network_mode": "public"}
    baseline = {"network_mode": "public"} if setup_network == "public" else dict(policy)
    verifier = "public" if network == "public" else "no-network"
    return {
        "schema_version": "1.4",
        "source": "smellkit",
        "task": {
            "name": f"smellkit/{case.instance_id}",
            "description": f"Remove an injected {case.smell} smell ({case.difficulty}) from "
                           f"{case.repo}, keeping behaviour",
            "keywords": ["refactoring", case.smell, case.difficulty, case.repo],
        },
        "metadata": {
            "instance_id": case.instance_id,
            "smell": case.smell,
            "smellbench_type": to_smellbench(case.smell),
            "difficulty": case.difficulty,
            "repo": case.repo,
            "revision": case.revision,
            "files": list(case.files),
            "targets": [target.location.qualname for target in case.targets],
            "target_level": sorted({target.level for target in case.targets}),
            "selected_tests": len(case.tests),
            "llm_tokens": case.llm_tokens,
            "scorer": f"smellkit {__version__}",
            "base_image": base_image or default_base(spec),
            "system_pinned": system_pinned,
            "network": network,
            "smellkit_export": export_key,
        },
        "verifier": {"timeout_sec": float(spec.timeouts.test + 600),
                     "network_mode": verifier},
        "agent": {"timeout_sec": 3600.0, **policy},
        "environment": {"build_timeout_sec": float(spec.timeouts.install + 900), "cpus": 1,
                        "memory_mb": 4096, "workdir": APP, **baseline},
    }


def _skipped(name: str) -> bool:
    return name in SKIPPED_NAMES or name.endswith((".pyc", ".pyo", ".egg-info"))


def copy_repo(checkout: Path, dest: Path, tests_path: str) -> None:
    """The repository as the image holds it before the smelly patch: without the tests folder,
    version control, environments and caches."""
    skip = (checkout / tests_path.strip("/")).resolve() if tests_path.strip("/") else None

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {name for name in names if _skipped(name)
                or (skip is not None and (Path(folder) / name).resolve() == skip)}

    shutil.copytree(checkout, dest, symlinks=True, ignore=ignore)


def _tar_info(tree: Path, path: Path) -> tarfile.TarInfo:
    info = tarfile.TarInfo(path.relative_to(tree).as_posix())
    mode = path.lstat().st_mode
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    if stat.S_ISLNK(mode):
        info.type, info.linkname, info.mode = tarfile.SYMTYPE, os.readlink(path), 0o777
    elif stat.S_ISDIR(mode):
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size, info.mode = path.stat().st_size, 0o755 if mode & stat.S_IXUSR else 0o644
    return info


def tree_archive(tree: Path, target: Path) -> None:
    """A reproducible .tar.gz of `tree` (members relative to it, sorted, no dates or owners)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for path in sorted(tree.rglob("*")):
            info = _tar_info(tree, path)
            if info.isreg():
                with open(path, "rb") as handle:
                    archive.addfile(info, handle)
            else:
                archive.addfile(info)
    with open(target, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                  filename="") as handle:
        handle.write(buffer.getvalue())


def _original_hashes(case: Case, checkout: Path) -> str:
    """sha256 lines of the original content of the files the smelly patch changes or deletes,
    paths relative to the package root (what `_no_original.py` looks for)."""
    root = checkout / case.source_path.strip("/")
    lines = []
    for path in sorted(patched_paths(case.smelly_patch)):
        original = root / path
        if original.is_file() and original.stat().st_size:
            lines.append(f"{hashlib.sha256(original.read_bytes()).hexdigest()}  {path}\n")
    return "".join(lines)


def manifest_files(bundle: Bundle, pin: BasePin) -> dict[str, str]:
    """tests/manifest.*: the scorer's files (one root: exactly these files), and the base
    image's interpreter, stdlib, tools and libraries when it was pinned."""
    hashes = dict(bundle.files)
    roots: dict[str, list[str]] = {VERIFIER_DIR: []}
    links: list[list[str]] = []
    absent: list[str] = []
    record = pin.record
    if record:
        hashes.update((path, digest) for path, digest in record["sha256"])
        roots.update((root, pruned) for root, pruned in record["roots"])
        links, absent = record["links"], record["absent"]
    files = {
        "manifest.sha256": "".join(f"{digest}  {path}\n"
                                   for path, digest in sorted(hashes.items())),
        "manifest.roots": "".join(" ".join([root, *pruned]) + "\n"
                                  for root, pruned in sorted(roots.items())),
        "manifest.links": "".join(f"{path}\t{target}\n" for path, target in links),
        "manifest.absent": "".join(f"{path}\n" for path in absent),
    }
    if record:
        files["manifest.python"] = f"{record['python']}\n"
    return files


class HarborExport:
    """Writes task directories; collects the scorer's wheels and inspects each base image once.

    `cache_dir` holds the wheels between builds. `dependencies` replaces how the scorer's
    dependency wheels are found (tests use none, so nothing is downloaded)."""

    def __init__(self, options: HarborOptions | None = None, cache_dir: Path | None = None, *,
                 dependencies: DependencySource | None = None):
        from smellkit.project.options import default_cache_dir

        self.options = options or HarborOptions()
        self.cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.dependencies = dependencies or dependency_wheels
        self._bundles: dict[str, Bundle] = {}
        self._pins: dict[str, BasePin] = {}

    def base(self, spec: RepoSpec) -> tuple[str, BasePin, str]:
        """The base image, what inspecting it gave, and its Python version."""
        image = self.options.base_image or default_base(spec)
        if image not in self._pins:
            self._pins[image] = inspect_base(image) if self.options.pin_base else \
                BasePin(image=image, reason="pinning was not asked for")
        pin = self._pins[image]
        python = self.options.base_python or pin.python or (
            image_python(spec) if self.options.base_image is None else None)
        if python is None:
            raise BundleError(f"the Python version of {image} is unknown ({pin.reason})",
                              hint="give it with --base-python X.Y")
        if pin.python is not None and pin.python != python:
            raise BundleError(f"{image} runs Python {pin.python}, not {python}",
                              hint="fix --base-python")
        return image, pin, python

    def bundle(self, python: str) -> Bundle:
        if python not in self._bundles:
            self._bundles[python] = prepare_bundle(self.cache, python, self.dependencies)
        return self._bundles[python]

    def write_task(self, case: Case, spec: RepoSpec, checkout: Path, harbor_dir: Path) -> Path:
        """Write (or keep, if complete and exported the same way) `harbor_dir/<instance_id>/`;
        written in a scratch folder and renamed into place, so a kill never leaves half a task."""
        image, pin, python = self.base(spec)
        bundle = self.bundle(python)
        shared = _top_names(case.files) & _top_names(
            path.removeprefix(f"{VERIFIER_DIR}/lib/") for path, _ in bundle.files)
        if shared:
            raise BundleError(
                f"{case.instance_id}: the scorer ships its own copy of {', '.join(sorted(shared))}"
                ", the package this case changes: the agent could read an unsmelled version",
                hint="benchmarks of smellkit's own dependencies cannot be exported for Harbor")
        key = hashlib.sha256(json.dumps([
            EXPORT_FORMAT, to_row(case), spec.model_dump(mode="json"), image, python,
            list(self.options.allow_hosts), self.options.setting, self.options.setup_network,
            self.options.network, bundle.key, pin.record,
        ], sort_keys=True, default=str).encode()).hexdigest()[:16]
        final = harbor_dir / case.instance_id
        if _export_key(final) == key:
            return final
        harbor_dir.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=harbor_dir, prefix=f".{case.instance_id}."))
        try:
            self._fill(scratch, case, spec, checkout, image, pin, bundle, key)
            shutil.rmtree(final, ignore_errors=True)
            scratch.rename(final)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        return final

    def _fill(self, task: Path, case: Case, spec: RepoSpec, checkout: Path, image: str,
              pin: BasePin, bundle: Bundle, key: str) -> None:
        options = self.options
        config = task_config(case, spec, allow_hosts=options.allow_hosts,
                             setup_network=options.setup_network,
                             base_image=options.base_image, system_pinned=pin.pinned,
                             export_key=key, network=options.network)
        (task / "task.toml").write_text(toml_text(config), encoding="utf-8")
        text = case.instructions.get(options.setting) or case.instructions.get("open", "")
        (task / "instruction.md").write_text(
            instruction(case, text, allow_hosts=options.allow_hosts,
                        public=options.network == "public"), encoding="utf-8")
        self._environment(task / "environment", case, spec, checkout, image, pin, bundle)
        self._tests(task / "tests", case, spec, checkout, pin, bundle)
        solution = task / "solution"
        solution.mkdir()
        (solution / "ground_truth.patch").write_bytes(case.ground_truth_patch.encode("utf-8"))
        _script(solution / "solve.sh", solve_script(spec))

    def _environment(self, environment: Path, case: Case, spec: RepoSpec, checkout: Path,
                     image: str, pin: BasePin, bundle: Bundle) -> None:
        environment.mkdir()
        base = self.options.base_image
        (environment / "Dockerfile").write_text(
            dockerfile(spec, base_image=base or image, pinned=pin.pinned), encoding="utf-8")
        (environment / "smelly.patch").write_bytes(case.smelly_patch.encode("utf-8"))
        if spec.source.pypi is not None:
            (environment / "unpack_sdist.py").write_text(UNPACK_SDIST, encoding="utf-8")
        elif spec.source.git is None:
            copy_repo(checkout, environment / "repo", spec.tests_path)
        (environment / "original.sha256").write_text(_original_hashes(case, checkout),
                                                     encoding="utf-8")
        shutil.copyfile(HERE / "_no_original.py", environment / "no_original.py")
        verifier = environment / "verifier"
        verifier.mkdir()
        for wheel in bundle.wheels:
            link_or_copy(wheel, verifier / wheel.name)
        shutil.copyfile(HERE / "_unpack_wheels.py", verifier / "unpack_wheels.py")
        shutil.copyfile(HERE / "_record.py", verifier / "record.py")
        if pin.pinned:
            (verifier / "pinned.json").write_text(json.dumps(pin.record), encoding="utf-8")

    def _tests(self, tests: Path, case: Case, spec: RepoSpec, checkout: Path, pin: BasePin,
               bundle: Bundle) -> None:
        tests.mkdir()
        tests_path = spec.tests_path.strip("/")
        if tests_path:
            shutil.copytree(checkout / tests_path, tests / tests_path,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        record = {"format": CASE_FORMAT, "case": to_row(case),
                  "spec": spec.model_dump(mode="json", by_alias=True),
                  "setting": self.options.setting}
        (tests / "case.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        with tempfile.TemporaryDirectory(prefix="smellkit-smelly-") as scratch:
            smelly = Path(scratch) / "smelly"
            copy_repo(checkout, smelly, spec.tests_path)
            apply_patch(smelly / case.source_path.strip("/"), case.smelly_patch)
            tree_archive(smelly, tests / "smelly.tar.gz")
        for name, text in manifest_files(bundle, pin).items():
            (tests / name).write_text(text, encoding="utf-8")
        _script(tests / "test.sh", test_script())
        _script(tests / "integrity.sh", (HERE / "integrity.sh").read_text(encoding="utf-8"))
        (tests / TESTS_LIST).write_text("".join(
            f"{hashlib.sha256(path.read_bytes()).hexdigest()}  "
            f"{path.relative_to(tests).as_posix()}\n"
            for path in sorted(tests.rglob("*")) if path.is_file()), encoding="utf-8")


def _top_names(paths: Iterable[str]) -> set[str]:
    """Top-level import names of package-relative paths (`click/core.py` -> click)."""
    return {path.split("/", 1)[0].removesuffix(".py") for path in paths
            if not path.split("/", 1)[0].endswith((".dist-info", ".data"))}


def _script(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def _export_key(task: Path) -> str | None:
    """The key a complete task was exported with (None: none, or not complete)."""
    try:
        config = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = config.get("metadata", {}).get("smellkit_export")
    return key if isinstance(key, str) else None


def write_task(case: Case, spec: RepoSpec, checkout: Path, harbor_dir: Path, *,
               setting: InstructionSetting = "guided", options: HarborOptions | None = None,
               cache_dir: Path | None = None) -> Path:
    """One task directory (see `HarborExport`; a build shares one exporter between tasks)."""
    chosen = options or HarborOptions(setting=setting)
    return HarborExport(chosen, cache_dir).write_task(case, spec, checkout, harbor_dir)
