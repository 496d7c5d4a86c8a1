"""The task image (`environment/Dockerfile`): what the agent works in and the verifier runs on.

In build order:

1. `FROM` the base image: `--base-image` at export, default `python:X.Y-slim` (X.Y from the
   spec). It must run `python3` with the venv module; git, patch and findutils are installed
   with apt-get when missing.
2. `/opt/project-env`: a virtualenv for the repository (first on PATH), so `python` and `pip`
   are the project's, on any base (Debian's own python refuses `pip install`).
3. `/app`: the source fetched (PyPI sdist, git clone or the copied tree), the smelly patch
   applied and the tests folder deleted, all in one RUN step, so no layer holds the original
   code or the tests; pip runs without a cache for the same reason. Then the spec's install
   commands, pytest if missing, and a check (`_no_original.py`) that the original version of
   no file the case changed is anywhere in the image. What the installs wrote into /app is
   listed in `GENERATED`, so it is not taken for the agent's work. Committed to a fresh git
   repository and tagged `smellkit-smelly` (for the agent's convenience only: scoring compares
   with a pristine copy that arrives with /tests, never with this history).
4. `/opt/smellkit-verifier`: the scorer's wheels extracted byte for byte (`_unpack_wheels.py`;
   collected at export, so nothing is fetched for it). Last, `_record.py` records the
   interpreter, stdlib, tools, libraries and the project environment in `/opt/smellkit-build.*`,
   and, when the base was pinned at export, fails the build if the base is not that one.
"""

from __future__ import annotations

import json
import shlex

from smellkit.bench.harbor.bundle import VERIFIER_DIR
from smellkit.config import RepoSpec

APP = "/app"
PROJECT_ENV = "/opt/project-env"
BUILD_RECORD = "/opt/smellkit-build"
BASE_TAG = "smellkit-smelly"
"""The image's commit of the code to refactor."""
STAGE = "/tmp/smellkit-verifier"
"""Where environment/verifier/ is copied during the build (removed in the same step)."""

_EXCLUDED = r"__pycache__/\n*.py[co]\n.pytest_cache/\n.mypy_cache/\n.ruff_cache/\n*.egg-info/\n"
"""Kept out of the image's git repository: what running the code and its tools leaves behind."""

UNPACK_SDIST = '''\
"""Unpack the source archive (tar or zip) into the target folder, without its top folder."""
import pathlib
import shutil
import sys
import tarfile
import zipfile

archive, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
scratch = pathlib.Path("/tmp/unpacked")
if archive.name.endswith(".zip"):
    zipfile.ZipFile(archive).extractall(scratch)
elif hasattr(tarfile, "data_filter"):
    tarfile.open(archive).extractall(scratch, filter="data")
else:  # Python before 3.11.4 (Debian 12's 3.11.2): the archive comes from the package index
    tarfile.open(archive).extractall(scratch)
(top,) = list(scratch.iterdir())
target.mkdir(parents=True, exist_ok=True)
for item in top.iterdir():
    shutil.move(str(item), target / item.name)
shutil.rmtree(scratch)
'''

GENERATED = "/opt/smellkit-build.generated"
"""Files of /app that the install commands created or changed (one path a line, relative to
/app): the verifier leaves them out of the agent's change. Only the agent's own score can
suffer from editing this list (a path left out is scored as it was given)."""
_APP_HASHES = (f"(cd {APP} && find . -path ./.git -prune -o -type f -print0 "
               "| xargs -0 -r sha256sum | LC_ALL=C sort)")

_TOOLS = ("git", "patch", "bash", "find")
_APT = ("git", "patch", "bash", "findutils", "ca-certificates")


def image_python(spec: RepoSpec) -> str:
    """The interpreter version of the default base image (`python:X.Y-slim`)."""
    return spec.python if "." in spec.python else "3.11"


def default_base(spec: RepoSpec) -> str:
    return f"python:{image_python(spec)}-slim"


def directory_flag(spec: RepoSpec) -> str:
    path = spec.source_path.strip("/")
    return f" --directory={shlex.quote(path)}" if path else ""


def _fetch(spec: RepoSpec) -> tuple[list[str], str]:
    """COPY lines and the shell command putting the original source at /app."""
    source = spec.source
    if source.pypi is not None:
        return (["COPY unpack_sdist.py /tmp/unpack_sdist.py"],
                f"python -m pip download --no-cache-dir --no-deps --no-binary :all: "
                f"{shlex.quote(source.pypi)} -d /tmp/sdist "
                f"&& python /tmp/unpack_sdist.py /tmp/sdist/* {APP} "
                f"&& rm -rf /tmp/sdist /tmp/unpack_sdist.py")
    if source.git is not None:
        return ([], f"git clone --quiet {shlex.quote(source.git)} {APP} && cd {APP} "
                    f"&& git checkout --quiet {shlex.quote(str(source.commit))} && rm -rf .git")
    return ([f"COPY repo/ {APP}/"], "true")


def dockerfile(spec: RepoSpec, *, base_image: str | None = None, pinned: bool = False) -> str:
    """The Dockerfile text; `pinned`: the build must match the base pinned at export."""
    tests = shlex.quote(f"{APP}/{spec.tests_path.strip('/')}")
    copies, fetch = _fetch(spec)
    env = "".join(f"ENV {key}={json.dumps(value)}\n" for key, value in sorted(spec.env.items()))
    installs = "".join(f"RUN cd {APP} && {command}\n" for command in spec.install)
    missing = " || ".join(f"! command -v {tool} >/dev/null" for tool in _TOOLS)
    expect = f" --expect {STAGE}/pinned.json" if pinned else ""
    base_python = "$(PATH=/usr/local/bin:/usr/bin:/bin; command -v python3)"
    return (
        f"FROM {base_image or default_base(spec)}\n"
        f"RUN if {missing}; then apt-get update && apt-get install -y "
        f"--no-install-recommends {' '.join(_APT)} && rm -rf /var/lib/apt/lists/*; fi\n"
        f"RUN python3 -m venv {PROJECT_ENV}\n"
        f"ENV PATH={PROJECT_ENV}/bin:$PATH VIRTUAL_ENV={PROJECT_ENV} PIP_NO_CACHE_DIR=1 "
        "PIP_DISABLE_PIP_VERSION_CHECK=1\n"
        f"{env}WORKDIR {APP}\n"
        + "".join(f"{line}\n" for line in copies)
        + "COPY smelly.patch /tmp/smelly.patch\n"
        f"RUN {fetch} && cd {APP} && git apply{directory_flag(spec)} /tmp/smelly.patch "
        f"&& rm -f /tmp/smelly.patch && rm -rf {tests} && {_APP_HASHES} > /tmp/app-before\n"
        + installs
        + "RUN python -c 'import pytest' 2>/dev/null || python -m pip install pytest\n"
        "COPY original.sha256 no_original.py /tmp/\n"
        "RUN python3 -I -S -B /tmp/no_original.py /tmp/original.sha256 "
        f"&& {_APP_HASHES} > /tmp/app-after "
        f"&& LC_ALL=C comm -13 /tmp/app-before /tmp/app-after | cut -c67- > {GENERATED} "
        "&& rm -f /tmp/original.sha256 /tmp/no_original.py /tmp/app-before /tmp/app-after\n"
        f"RUN git init --quiet && printf '{_EXCLUDED}' >> .git/info/exclude && git add -A "
        "&& git -c user.name=smellkit -c user.email=smellkit@localhost commit --quiet "
        f"-m 'the code to refactor' && git tag {BASE_TAG}\n"
        f"COPY verifier/ {STAGE}/\n"
        f"RUN PY={base_python} && \"$PY\" -I -S -B {STAGE}/unpack_wheels.py {STAGE} "
        f"{VERIFIER_DIR} && \"$PY\" -I -S -B {STAGE}/record.py --system --env {PROJECT_ENV} "
        f"--out {BUILD_RECORD}{expect} && rm -rf {STAGE}\n"
    )
