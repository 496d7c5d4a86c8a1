"""One feature-envy case of click 8.1.7 and a Harbor base image built from Debian packages, for
the tests that run an exported task in containers (tests/bench/test_harbor_docker.py, which plays
Harbor's phases, and tests/bench/test_harbor_real.py, which runs Harbor itself).

The build is kept under the test-data cache (a rerun only resumes it); a file lock keeps two
test workers from resuming it at once. No registry is needed: the base image is assembled from
Debian packages (`smellkit.sandbox.image`), and the task image's `FROM` is that image.
"""

from __future__ import annotations

import fcntl
import time
from dataclasses import dataclass
from pathlib import Path

from smellkit.config import RepoSpec, load_repo_spec
from smellkit.models import Case

SPEC = Path(__file__).parents[2] / "examples" / "specs" / "click.toml"


@dataclass(frozen=True)
class ClickOne:
    out: Path
    """The build's output folder (dataset.jsonl, specs): what `smellkit evaluate` takes."""
    case: Case
    spec: RepoSpec
    checkout: Path
    base_image: str
    """The tag of the base image built from Debian packages."""


def click_one(times: dict[str, float]) -> ClickOne:
    """Build (or find) the base image and the one-case click dataset; their times go into
    `times`."""
    from smellkit.bench import build, load_dataset
    from smellkit.sandbox.checkout import fetch
    from smellkit.sandbox.image import HARBOR_PACKAGES, build_python_image, keyed_tag
    from tests.support.pypi import data_dir

    started = time.perf_counter()
    base = keyed_tag("smellkit-harbor-base", HARBOR_PACKAGES, ())
    build_python_image(base, packages=HARBOR_PACKAGES, pip_packages=())
    times["base image (built or found)"] = time.perf_counter() - started

    started = time.perf_counter()
    out = data_dir() / "harbor" / "click-one"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / ".click-one.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        report = build(SPEC, out, cache_dir=data_dir() / "sandbox", smells=["feature_envy"],
                       difficulties=["easy"], per_cell=1, spare=0, jobs=2, harbor=False)
    assert report.cases == 1 and not report.repo_errors, report
    times["one-case click build (resumed when cached)"] = time.perf_counter() - started

    (case,) = load_dataset(out / "dataset.jsonl")
    spec = load_repo_spec(SPEC)
    checkout = fetch(spec, data_dir() / "sandbox")
    return ClickOne(out=out, case=case, spec=spec, checkout=checkout, base_image=base)
