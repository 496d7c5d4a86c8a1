"""One virtualenv per target repository, built once and reused by every case.

Why the case copy, not the install tree, is what tests import: the install commands (by default
`pip install -e .`) run in a private copy of the pristine checkout kept inside the environment
folder, so the pristine tree is never written to and the editable install points at a tree no case
edits. When tests run, the case copy's `source_path` is put first on PYTHONPATH; PYTHONPATH
entries precede site-packages and the `.pth` entries of editable installs on `sys.path`, so
`import pkg` finds the copy's (possibly smelly) code. `imported_from` checks exactly that.
Compiled extension modules are built only in the install tree, so repositories that need them
are not supported yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from smellkit.config import RepoSpec, find_python
from smellkit.sandbox.checkout import copy_tree, locked, tree_hash
from smellkit.sandbox.errors import SandboxError
from smellkit.sandbox.runner import LocalRunner, Runner

READY = ".smellkit-ready"
"""Written last: an environment without it is half-built and is rebuilt from scratch."""

TOOLING = ("coverage>=7.0",)
"""Installed into every environment when missing: the test map runs the suite under coverage."""

PASS_THROUGH = ("HOME", "LANG", "LC_ALL", "TMPDIR", "TERM", "http_proxy", "https_proxy",
                "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "SSL_CERT_FILE",
                "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
                "PIP_CACHE_DIR", "PIP_TRUSTED_HOST", "PIP_CERT")
"""Variables of the calling process kept: locale, proxies and package-index settings."""

SYSTEM_PREFIXES = ("/usr", "/")
"""Interpreter prefixes never mounted into a container (they would hide the image's own)."""


class Environment(BaseModel):
    """A ready virtualenv: where it is, its interpreter, and the variables to run it with."""

    model_config = ConfigDict(frozen=True)

    root: Path
    """The environment folder: `venv/`, the install tree `src/`, logs and cached test maps."""
    python: Path
    """The virtualenv's interpreter (`root/venv/bin/python`)."""
    env: dict[str, str]
    """Variables every command runs with: PATH (venv first), VIRTUAL_ENV, the spec's `env`."""
    source_path: str = ""
    """Where, inside a case copy, the package lives; put first on PYTHONPATH."""
    base_prefix: Path | None = None
    """The interpreter installation the venv links to; isolated runners must see it."""

    @property
    def venv(self) -> Path:
        return self.root / "venv"

    def env_for(self, copy_root: Path, *extra_paths: Path) -> dict[str, str]:
        """The variables for running tests on `copy_root`: its source first on PYTHONPATH."""
        source = (Path(copy_root) / self.source_path).resolve()
        paths = [str(source), *(str(path) for path in extra_paths)]
        return {**self.env, "PYTHONPATH": os.pathsep.join(paths)}

    def mounts(self) -> tuple[Path, ...]:
        """Folders a container needs read-only to run this environment's interpreter."""
        found = [self.root]
        if self.base_prefix is not None and str(self.base_prefix) not in SYSTEM_PREFIXES:
            found.append(self.base_prefix)
        return tuple(found)


def environment_key(spec: RepoSpec, python: str, checkout: Path | None = None) -> str:
    """What the environment depends on: the source revision, interpreter, installs and env.

    A local folder has no revision, so its content hash stands in for one.
    """
    revision = spec.revision
    if spec.source.path is not None and checkout is not None:
        revision = "local:" + tree_hash(checkout)
    fields = {"name": spec.name, "revision": revision, "python": python,
              "install": list(spec.install), "env": spec.env, "tooling": list(TOOLING),
              "source": spec.source.model_dump()}
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return f"{spec.name}-{digest[:12]}"


def base_env(venv: Path, spec: RepoSpec) -> dict[str, str]:
    """A small, explicit environment: nothing of the caller's Python setup leaks in."""
    env = {name: os.environ[name] for name in PASS_THROUGH if name in os.environ}
    env.setdefault("HOME", str(Path.home()))
    env.setdefault("LANG", "C.UTF-8")
    env["PATH"] = os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", os.defpath)])
    env["VIRTUAL_ENV"] = str(venv)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    env.update(spec.env)
    return env


def prepare(spec: RepoSpec, checkout: Path, cache_dir: Path,
            runner: Runner | None = None) -> Environment:
    """The repository's environment, built under `cache_dir/envs` on first use, then reused.

    Installing needs PyPI, so `runner` (default: local) must have network access. A failing
    install raises SandboxError naming the command and the tail of its output.
    """
    runner = runner or LocalRunner()
    python = find_python(spec.python, path=spec.spec_path)
    root = Path(cache_dir).resolve() / "envs" / environment_key(spec, python, Path(checkout))
    with locked(root.with_suffix(".lock")):
        ready = root / READY
        if ready.exists():
            return Environment.model_validate_json(ready.read_text())
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        environment = _build(spec, Path(checkout), root, python, runner)
        ready.write_text(environment.model_dump_json(indent=2))
        return environment


def _build(spec: RepoSpec, checkout: Path, root: Path, python: str,
           runner: Runner) -> Environment:
    started = time.monotonic()
    venv = root / "venv"
    make_venv(python, venv, seed_dir=root.parent.parent / "seeds", spec=spec)
    env = base_env(venv, spec)
    tree = copy_tree(checkout, root / "src")
    log: list[str] = []
    tooling = "python -c 'import coverage' 2>/dev/null || python -m pip install " + " ".join(
        f"'{item}'" for item in TOOLING)
    for command in (*spec.install, tooling):
        left = spec.timeouts.install - (time.monotonic() - started)
        if left <= 0:
            raise SandboxError(f"install took longer than {spec.timeouts.install:.0f}s before "
                               f"{command!r}", path=spec.spec_path, hint="raise timeouts.install")
        result = runner.run(command, cwd=tree, env=env, timeout=left)
        log.append(f"$ {command}\n{result.stdout}\n{result.stderr}")
        (root / "install.log").write_text("\n".join(log))
        if not result.ok:
            field = "install" if command in spec.install else "install (coverage for the test map)"
            raise SandboxError(f"install command {command!r} {result.describe(8)}",
                               path=spec.spec_path, hint=f"fix the spec's {field}; full log: "
                               f"{root / 'install.log'}")
    probe = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import sys; print(sys.base_prefix)"], capture_output=True, text=True)
    return Environment(root=root, python=venv / "bin" / "python", env=env,
                       source_path=spec.source_path,
                       base_prefix=Path(probe.stdout.strip()) if probe.returncode == 0 else None)


def _venv(python: str, target: Path, *options: str, spec: RepoSpec | None = None) -> None:
    made = subprocess.run([python, "-m", "venv", *options, str(target)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        raise SandboxError(f"cannot create a virtualenv with {python}: {made.stderr.strip()}",
                           path=spec.spec_path if spec else None,
                           hint="install the venv module (python3-venv)")


def _site_packages(venv: Path) -> Path:
    (found,) = (venv / "lib").glob("python3*/site-packages")
    return found


def make_venv(python: str, venv: Path, *, seed_dir: Path, spec: RepoSpec | None = None) -> None:
    """A virtualenv with pip, in well under a second after the first one.

    `python -m venv` spends 5-15 s installing pip from its bundled wheel every time; instead pip
    is installed once into a seed venv per interpreter and its (location-independent) package
    folders are copied, as virtualenv's app-data seeder does. Console scripts are written anew.
    """
    seed = seed_dir / hashlib.sha256(python.encode()).hexdigest()[:12]
    with locked(seed.with_suffix(".lock")):
        if not (seed / READY).exists():
            shutil.rmtree(seed, ignore_errors=True)
            _venv(python, seed, spec=spec)
            (seed / READY).touch()
    _venv(python, venv, "--without-pip", spec=spec)
    source, target = _site_packages(seed), _site_packages(venv)
    for item in source.iterdir():
        if item.name.startswith(("pip", "setuptools", "_distutils_hack", "distutils-precedence",
                                 "pkg_resources")):
            copy = shutil.copytree if item.is_dir() else shutil.copy2
            copy(item, target / item.name)
    minor = target.parent.name.removeprefix("python")
    launcher = (f"#!{venv / 'bin' / 'python'}\nimport sys\n"
                "from pip._internal.cli.main import main\nsys.exit(main())\n")
    for name in ("pip", "pip3", f"pip{minor}"):
        script = venv / "bin" / name
        script.write_text(launcher)
        script.chmod(0o755)


def imported_from(environment: Environment, copy_root: Path, module: str,
                  runner: Runner | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The file `import module` loads when tests run on `copy_root`: proves which code is tested."""
    runner = runner or LocalRunner()
    result = runner.run([str(environment.python), "-c",
                         f"import {module} as m; print(m.__file__)"], cwd=Path(copy_root),
                        env=env or environment.env_for(copy_root), timeout=120,
                        mounts=environment.mounts())
    if not result.ok:
        raise SandboxError(f"cannot import {module} in the environment: {result.describe(5)}",
                           path=copy_root, hint="check source-path and install in the spec")
    return Path(result.stdout.strip().splitlines()[-1])
