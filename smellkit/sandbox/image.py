"""A Python image for the Docker runner, built without pulling from any registry.

Registries may be out of reach where benchmarks are built, but the Debian archive usually is not:
the image's root file system is assembled from Debian packages (`apt-get download` the python3
packages and their dependency closure, `dpkg-deb -x` each into a folder), test tools are added
with the host's pip (`pip install --target` for the image's Python version), and the folder is
loaded with `docker import`. Needs a Debian-family host with apt-get and dpkg-deb.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from smellkit.sandbox.checkout import locked
from smellkit.sandbox.docker import docker_client
from smellkit.sandbox.errors import SandboxError

BASE_PACKAGES = ("python3", "python3-venv", "dash", "bash", "coreutils", "libc-bin",
                 "ca-certificates")
"""A shell, core tools, the dynamic linker cache tool, and Python with the venv module."""

PIP_PACKAGES = ("pytest", "coverage")
"""Installed into the image's site-packages, so the image alone can run a repo's tests."""

DEFAULT_TAG = "smellkit-python:latest"

HARBOR_PACKAGES = (*BASE_PACKAGES, "git", "patch", "findutils")
"""A base for exported Harbor tasks (`smellkit build --base-image`): what the task's Dockerfile
and its verifier need (git and patch apply and diff, find checks files), so no apt-get runs."""

HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
_FORMAT = 2
"""Bumped when what `_build` puts into an image changes (part of `keyed_tag`)."""


def _run(command: list[str], what: str, cwd: Path | None = None, timeout: float = 900) -> str:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as error:
        raise SandboxError(f"{what}: {command[0]} is not installed",
                           hint="build images on a Debian or Ubuntu host") from error
    except subprocess.TimeoutExpired as error:
        raise SandboxError(f"{what} timed out after {timeout:.0f}s") from error
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise SandboxError(f"{what} failed: {tail}")
    return done.stdout


def dependency_closure(packages: Sequence[str]) -> list[str]:
    """The packages plus everything they depend on (not recommends), by apt's own resolver."""
    output = _run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                   "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances",
                   *packages], "apt-cache depends")
    names = {line.strip() for line in output.splitlines()
             if line and not line.startswith(" ") and not line.startswith("<")}
    return sorted(names)


def assemble_rootfs(rootfs: Path, packages: Sequence[str], debs: Path) -> list[str]:
    """Download and unpack the packages' closure into `rootfs`; the package names."""
    names = dependency_closure(packages)
    debs.mkdir(parents=True, exist_ok=True)
    _run(["apt-get", "download", "-q", *names], "apt-get download", cwd=debs)
    rootfs.mkdir(parents=True, exist_ok=True)
    for deb in sorted(debs.glob("*.deb")):
        _run(["dpkg-deb", "-x", str(deb), str(rootfs)], f"dpkg-deb -x {deb.name}")
    _finish(rootfs)
    return names


def keyed_tag(repository: str, packages: Sequence[str] = BASE_PACKAGES,
              pip_packages: Sequence[str] = PIP_PACKAGES) -> str:
    """`repository:<key>`, the key made from what goes into the image, so a changed package
    list gets a new image and an unchanged one is found again instead of rebuilt."""
    key = hashlib.sha256(json.dumps([_FORMAT, sorted(packages), sorted(pip_packages)]).encode())
    return f"{repository}:{key.hexdigest()[:12]}"


def _finish(rootfs: Path) -> None:
    """What dpkg's maintainer scripts would have done, as far as running Python needs.

    ca-certificates' script would build /etc/ssl/certs/ca-certificates.crt from the trusted
    certificates; the host's bundle stands in for it (it is what this machine trusts, a proxy's
    authority included), so pip in the image reaches the package index as the host does."""
    (rootfs / "tmp").mkdir(exist_ok=True)
    (rootfs / "tmp").chmod(0o1777)
    for folder in ("root", "proc", "sys", "dev", "etc", "usr/local/bin", "work"):
        (rootfs / folder).mkdir(parents=True, exist_ok=True)
    (rootfs / "etc" / "passwd").write_text(
        "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n")
    (rootfs / "etc" / "group").write_text("root:x:0:\nnogroup:x:65534:\n")
    if not (rootfs / "bin" / "sh").exists() and (rootfs / "bin" / "dash").exists():
        (rootfs / "bin" / "sh").symlink_to("dash")
    bin_dir = rootfs / "usr" / "bin"
    if not (bin_dir / "python").exists() and (bin_dir / "python3").exists():
        (bin_dir / "python").symlink_to("python3")
    bundle = rootfs / "etc" / "ssl" / "certs" / "ca-certificates.crt"
    if HOST_CA_BUNDLE.is_file() and not bundle.exists():
        bundle.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HOST_CA_BUNDLE, bundle)
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    if Path(ldconfig).exists():  # without a cache the multiarch library folders are not searched
        subprocess.run([ldconfig, "-r", str(rootfs)], capture_output=True)


def image_python(rootfs: Path) -> str:
    """`3.11` for a root file system holding usr/bin/python3.11."""
    versions = sorted(match.group(1) for path in (rootfs / "usr" / "bin").glob("python3.*")
                      if (match := re.fullmatch(r"python(3\.\d+)", path.name)))
    if not versions:
        raise SandboxError("the unpacked packages hold no usr/bin/python3.X", path=rootfs)
    return versions[-1]


def add_pip_packages(rootfs: Path, packages: Sequence[str], version: str) -> None:
    """Wheels for the image's Python, installed by the host's pip into its dist-packages."""
    target = rootfs / "usr" / "local" / "lib" / f"python{version}" / "dist-packages"
    target.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          "--target", str(target), "--python-version", version, "--implementation", "cp",
          "--only-binary=:all:", "--platform", "manylinux_2_28_x86_64",
          "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux2014_x86_64",
          "--platform", "linux_x86_64", *packages], "pip install --target")
    scripts = target / "bin"
    if scripts.is_dir():  # console scripts point at the host's interpreter: rewrite them
        for script in scripts.iterdir():
            lines = script.read_text(errors="replace").splitlines(keepends=True)
            if lines and lines[0].startswith("#!"):
                lines[0] = f"#!/usr/bin/python{version}\n"
                destination = rootfs / "usr" / "local" / "bin" / script.name
                destination.write_text("".join(lines))
                destination.chmod(0o755)
        shutil.rmtree(scripts)


def build_python_image(tag: str = DEFAULT_TAG, *, packages: Sequence[str] = BASE_PACKAGES,
                       pip_packages: Sequence[str] = PIP_PACKAGES, work_dir: Path | None = None,
                       force: bool = False) -> str:
    """Build (or find, unless `force`) the image `tag`; its id."""
    client = docker_client()
    safe = re.sub(r"[^\w.-]", "_", tag)
    lock = Path(tempfile.gettempdir()) / f"smellkit-image-{safe}.lock"
    with locked(lock):  # parallel test workers or builds: one builds, the others find it
        if not force:
            try:
                return str(client.images.get(tag).id)
            except Exception:  # docker.errors.ImageNotFound: build it
                pass
        return _build(client, tag, packages, pip_packages, work_dir)


def _build(client: Any, tag: str, packages: Sequence[str], pip_packages: Sequence[str],
           work_dir: Path | None) -> str:
    with tempfile.TemporaryDirectory(dir=work_dir, prefix="smellkit-image-") as scratch:
        rootfs = Path(scratch) / "rootfs"
        names = assemble_rootfs(rootfs, packages, Path(scratch) / "debs")
        version = image_python(rootfs)
        if pip_packages:
            add_pip_packages(rootfs, pip_packages, version)
        archive = Path(scratch) / "rootfs.tar"
        with tarfile.open(archive, "w") as handle:
            for item in sorted(rootfs.iterdir()):
                handle.add(item, arcname=item.name)
        repository, label = (tag.rsplit(":", 1) if ":" in tag.split("/")[-1]
                             else (tag, "latest"))
        certificates = "/etc/ssl/certs/ca-certificates.crt"
        trust = [f"ENV SSL_CERT_FILE={certificates}", f"ENV PIP_CERT={certificates}"] \
            if (rootfs / certificates.lstrip("/")).is_file() else []
        changes = [*trust, "ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
                   "ENV LANG=C.UTF-8", "WORKDIR /work",
                   f'LABEL org.smellkit.packages="{len(names)}"',
                   f'LABEL org.smellkit.python="{version}"', 'CMD ["python3"]']
        client.api.import_image_from_file(str(archive), repository=repository, tag=label,
                                          changes=changes)
    return str(client.images.get(f"{repository}:{label}").id)
