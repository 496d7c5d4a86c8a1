"""The task's scripts: `tests/test.sh` (the verifier), `solution/solve.sh` (the oracle) and the
agent's `instruction.md`.

test.sh, in order (each step's reason in the script's comments):

1. freeze (SIGSTOP, never kill) every process the agent left running (only inside the task
   image), before anything else, so none can write a reward or change a file after it is
   checked. Not killed: Harbor's docker environment keeps its container alive with
   `sh -c "sleep infinity"`, whose `sleep` is one of these processes, and killing it ends the
   container with the verifier in it; a frozen process does nothing until a SIGCONT only the
   verifier or Harbor could send. The listing is repeated until every such process is stopped
   (one forked meanwhile, or resumed by a tracer, is stopped in the next round);
2. delete every reward and output file in /logs/verifier: the agent could write there during
   its phase, and no file from before this run may be read as its result;
3. `integrity.sh`: the scorer against the manifest that arrived with /tests, the environment
   against the record made at image build; on a mismatch reward.json is written with reward 0,
   `tampered_scorer` or `tampered_environment` 1 and the reason in verdict.txt (details in
   integrity.log), and nothing from the image's Python is run;
4. the scorer (`smellkit.evaluate.verifier`) with the recorded interpreter in isolated mode
   (`-I -S -B`: no environment variables, no site-packages or .pth files, no bytecode written),
   its own folder first on sys.path, an empty environment;
5. a reward of 0 (`verifier_error`) if the scorer wrote none.

The paths default to the container's; `SMELLKIT_FS_ROOT` (a folder standing for `/`), `APP_DIR`,
`TESTS_DIR` and `LOGS_DIR` exist so the script can be tried outside a container, and
`SMELLKIT_INTEGRITY_ONLY=1` stops after step 3.
"""

from __future__ import annotations

from collections.abc import Sequence

from smellkit.bench.harbor.bundle import VERIFIER_DIR
from smellkit.bench.harbor.image import (
    APP,
    BUILD_RECORD,
    GENERATED,
    PROJECT_ENV,
    directory_flag,
)
from smellkit.config import RepoSpec
from smellkit.formats.harbor import (
    ERROR_CODES,
    INTEGRITY_LOG,
    PREDICTION_PATCH,
    REWARD_JSON,
    REWARD_TXT,
    SCORE_JSON,
    VERDICT_TXT,
)
from smellkit.models import Case

_LAUNCH = ('import sys; sys.path[:0] = [sys.argv.pop(1)]; import runpy; '
           'runpy.run_module("smellkit.evaluate.verifier", run_name="__main__", alter_sys=True)')
"""The interpreter's `-c` program: the scorer's folder first on sys.path, then the module."""


def test_script() -> str:
    outputs = " ".join(f'"$LOGS/{name}"' for name in (REWARD_JSON, REWARD_TXT, PREDICTION_PATCH,
                                                      SCORE_JSON, VERDICT_TXT, INTEGRITY_LOG))
    scorer, environment, crashed = (ERROR_CODES[name] for name in (
        "tampered_scorer", "tampered_environment", "verifier_error"))
    return f"""\
#!/bin/bash
# Score this task with smellkit inside the container, after the agent, without network.
# Written by `smellkit build`; see smellkit.bench.harbor.scripts for each step's reason.
set -u
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
unset BASH_ENV ENV CDPATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT PYTHONPATH PYTHONHOME \\
    PYTHONSTARTUP PYTHONUSERBASE PYTHONINSPECT
ROOT=${{SMELLKIT_FS_ROOT:-}}
APP=${{APP_DIR:-{APP}}}
TESTS=${{TESTS_DIR:-/tests}}
LOGS=${{LOGS_DIR:-/logs}}/verifier
mkdir -p "$LOGS"

# 1. Whatever the agent left running could change /app, /tests or the results while they are
#    made, or write a reward after this script: frozen, not killed (the container's keep-alive
#    process is among them, and the container ends with it).
#    Only inside the task image (its build record exists): never on a machine trying this out.
if [[ -z $ROOT && -f {BUILD_RECORD}.sha256 ]]; then
    keep=" 1 $$ $BASHPID "
    pid=$$
    while [[ $pid != 0 && $pid != 1 && -r /proc/$pid/status ]]; do
        parent=0
        while read -r key value; do
            if [[ $key == PPid: ]]; then parent=$value; break; fi
        done < "/proc/$pid/status"
        keep+="$parent "
        pid=$parent
    done
    # Again until none is left running: a process may fork between the listing and its stop,
    # and a tracer may resume a traced process before it is stopped itself.
    for round in 1 2 3 4 5 6 7 8; do
        victims=()
        for entry in /proc/[0-9]*; do
            entry=${{entry#/proc/}}
            [[ $keep == *" $entry "* ]] && continue
            state=
            while read -r key value; do
                if [[ $key == State: ]]; then state=$value; break; fi
            done 2>/dev/null < "/proc/$entry/status"
            [[ -z $state || $state == [TtZX]* ]] || victims+=("$entry")
        done
        (( ${{#victims[@]}} )) || break
        kill -STOP "${{victims[@]}}" 2>/dev/null
    done
fi

# 2. Nothing written before this run is a result: the agent can write to /logs/verifier.
rm -rf -- {outputs}

zero() {{  # CODE TAMPERED_SCORER TAMPERED_ENVIRONMENT REASON
    printf '{{"reward": 0.0, "error_category": %d, "tampered_scorer": %d, ' "$1" "$2" \\
        > "$LOGS/{REWARD_JSON}"
    printf '"tampered_environment": %d}}\\n' "$3" >> "$LOGS/{REWARD_JSON}"
    printf 'reward 0.0: %s\\n' "$4" > "$LOGS/{VERDICT_TXT}"
}}

# 3. The scorer, the interpreter and tools it runs, and the project's environment must be as
#    recorded; if not, nothing of them is run.
bash "$TESTS/integrity.sh" "$TESTS" "$ROOT" > "$LOGS/{INTEGRITY_LOG}" 2>&1
status=$?
if [[ $status != 0 ]]; then
    mapfile -t -n 3 found < "$LOGS/{INTEGRITY_LOG}"
    reason=${{found[0]:-}}
    for line in "${{found[@]:1}}"; do reason+="; $line"; done
    if [[ $status == 11 ]]; then
        zero {environment} 0 1 "tampered_environment: $reason (integrity.log has every finding)"
    else
        zero {scorer} 1 0 "tampered_scorer: $reason (integrity.log has every finding)"
    fi
    exit 0
fi
if [[ -n ${{SMELLKIT_INTEGRITY_ONLY:-}} ]]; then exit 0; fi

# 4. The scorer: the recorded interpreter, isolated, the scorer's folder first on sys.path.
python=$(< "$ROOT{BUILD_RECORD}.python") || python=
if [[ -z $python ]]; then
    zero {environment} 0 1 "tampered_environment: no interpreter recorded at {BUILD_RECORD}.python"
    exit 0
fi
env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$ROOT$python" -I -S -B -c '{_LAUNCH}' \\
    "$ROOT{VERIFIER_DIR}/lib" --case "$TESTS/case.json" --smelly "$TESTS/smelly.tar.gz" \\
    --app "$APP" --tests-dir "$TESTS" --out "$LOGS" --generated "$ROOT{GENERATED}" \\
    --project-python "$ROOT{PROJECT_ENV}/bin/python"

# 5. A crash must not leave Harbor without a reward.
if [[ ! -s $LOGS/{REWARD_JSON} ]]; then
    zero {crashed} 0 0 "verifier_error: the scorer wrote no reward (see test-stdout.txt)"
fi
exit 0
"""


def solve_script(spec: RepoSpec) -> str:
    return (
        "#!/bin/bash\n"
        "# The reference solution: the exact inverse of the injected smell.\n"
        "set -euo pipefail\n"
        f'cd "${{APP_DIR:-{APP}}}"\n'
        f'git apply{directory_flag(spec)} "${{SOLUTION_DIR:-/solution}}/ground_truth.patch"\n'
    )


def _network(allow_hosts: Sequence[str], public: bool) -> str:
    if public:
        return ("the network is open. Work from the code you are given: fetching this "
                "project's code from elsewhere (its package index release, its repository) "
                "defeats the benchmark")
    hosts = "" if not allow_hosts else " and " + ", ".join(f"`{host}`" for host in allow_hosts)
    return (f"the network is closed, except for the model's API that runs you{hosts}; the "
            "package index and code hosting sites are not reachable")


def instruction(case: Case, text: str, *, allow_hosts: Sequence[str] = (),
                public: bool = False) -> str:
    """The agent's instruction: the case's wording for its setting, then the truth about the
    environment (its network: `public`, or closed but for `allow_hosts`) and how the result is
    scored."""
    count = len(case.tests)
    tests = f"{count} test{'s' if count != 1 else ''}"
    return f"""\
{text.strip()}

## Your environment and how your work is scored

- The repository is in `{APP}`, a git repository whose one commit is the code you are given.
  Your work is the state of `{APP}` when you stop: commits are not needed, and the history is
  not looked at. Every file you add, change or delete there is part of it; leave no binary
  files or build output behind.
- The repository's tests are not in this environment. After you stop, {tests} of its own suite,
  chosen because they exercise the code involved, are copied in and run on your version, so its
  behaviour must stay as it is. Static analysis then checks that the smell is gone from the code
  involved and that your change touches it.
- `python` and `pip` are the repository's environment (`{PROJECT_ENV}`: the repository is
  installed in it, with pytest). Do not install, upgrade or remove packages there, and do not
  change `{VERIFIER_DIR}` (the scorer) or the Python installation: they are checked against
  records made when this image was built, and a change scores 0. Install tools you need
  elsewhere (for example a virtualenv of your own).
- Changes to test machinery count as tampering and score 0: anything under `tests/`,
  `conftest.py`, pytest settings (`pytest.ini`, `[tool.pytest...]` in `pyproject.toml`,
  `setup.cfg`, `tox.ini`), `sitecustomize.py`, `usercustomize.py` and `*.pth` files.
- Network: {_network(allow_hosts, public)}.
- Processes you leave running are stopped before scoring.
"""
