"""Harbor task directories, one per case, scored inside the container by smellkit itself.

Layout (Harbor 0.26's task format):

    task.toml          network: the agent's allowlist (`--allow-host`, plus the model API host
                       Harbor adds; none by default) while it works and while the environment
                       is set up (`--setup-network public` opens setup), none while the
                       verifier runs (`--network public`: every phase open, for Harbor
                       environments that cannot enforce a policy); [metadata] says
                       whether the base image is pinned, and the network
    instruction.md     the case's instruction, then the truth about the environment and scoring
    environment/       Dockerfile (see `image`), smelly.patch, unpack_sdist.py or repo/,
                       original.sha256 + no_original.py (the build fails if the original code
                       is anywhere in the image), verifier/ (the scorer's wheels, the unpacker,
                       the recorder, pinned.json when the base was pinned)
    tests/             arrives after the agent phase: test.sh and integrity.sh (see `scripts`),
                       case.json (the case with its ground truth, the spec), smelly.tar.gz (the
                       pristine smelly tree the agent's work is compared with), the hidden tests
                       (tests/<tests-path>), manifest.* (what integrity.sh checks),
                       tests.sha256 (/tests must hold exactly these files)
    solution/          solve.sh applies ground_truth.patch (Harbor's oracle agent)

Integrity, and its limits: the manifest in /tests lists every file of the scorer's folder (known
here, because the image build only extracts wheels collected here) and, when the base image
could be inspected at export (`pin`), the interpreter, its standard library, the tools and the
libraries they load; test.sh checks them with the image's own sha256sum and find before running
any of the image's Python. The project's environment (built at image build from the package
index) can only be compared with a record made at image build, which sits in the image. The
trust root is therefore the image's bash, coreutils, findutils and loader: an agent with root
is not caught if it replaces them with liars, rewrites the build record together with what it
records (and, when the base was not pinned, the interpreter and stdlib too), makes the loader
pick another library of the same name (ld.so.cache, ld.so.conf.d; only ld.so.preload is
refused), or leaves a process that rewrites /tests between Harbor's upload and test.sh (test.sh
stops such processes, but only once it runs). When a check fails, no prediction.patch is saved:
nothing of the image's Python is run. A separate verifier environment (Harbor's
`[verifier] environment_mode = "separate"`, with /app passed as an artifact) would give a
clean trust root; these tasks use the shared one.
"""

from __future__ import annotations

from smellkit.bench.harbor.bundle import VERIFIER_DIR, Bundle, BundleError, prepare_bundle
from smellkit.bench.harbor.image import APP, BASE_TAG, PROJECT_ENV, dockerfile
from smellkit.bench.harbor.scripts import instruction, solve_script, test_script
from smellkit.bench.harbor.task import (
    HarborExport,
    HarborOptions,
    task_config,
    toml_text,
    write_task,
)

__all__ = [
    "APP", "BASE_TAG", "PROJECT_ENV", "VERIFIER_DIR", "Bundle", "BundleError", "HarborExport",
    "HarborOptions", "dockerfile", "instruction", "prepare_bundle", "solve_script",
    "task_config", "test_script", "toml_text", "write_task",
]
