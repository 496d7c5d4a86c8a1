#!/bin/bash
# Integrity of what the verifier is about to run. Usage: integrity.sh TESTS_DIR [ROOT]
#
#   TESTS_DIR/tests.sha256   the files of /tests as exported: exactly these, unchanged  -> exit 10
#   TESTS_DIR/manifest.*     written at export and copied in with /tests after the agent phase
#                            (the agent never saw it): every file of /opt/smellkit-verifier, and
#                            the interpreter, its standard library, the tools and the shared
#                            libraries when the exporter could inspect the base image. -> exit 10
#   ROOT/opt/smellkit-build.* recorded when the image was built, so inside the image: it only
#                            catches a change that did not also rewrite it. The interpreter,
#                            stdlib, tools and libraries again, and every file of
#                            /opt/project-env (the repository's environment).         -> exit 11
#
# For each: the sha256 of every listed file (sha256sum), every folder listed in .roots holds
# exactly the listed files and links (its __pycache__ folders are deleted first: bytecode is
# never compared and never loaded), links point where they did, and the paths in .absent do not
# exist. Also: no /etc/ld.so.preload, and the interpreter test.sh runs is the recorded one and is
# itself hashed. Problems are printed one a line; the first failing check sets the exit code.
# ROOT (default empty) prefixes every absolute path, so the check can be tried outside an image.
set -u
TESTS=$1
ROOT=${2:-}
status=0
declare -A hashed=()

problem() {  # CODE MESSAGE
    printf '%s\n' "$2"
    if [[ $status == 0 ]]; then status=$1; fi
}

check() {  # PREFIX CODE LABEL
    local prefix=$1 code=$2 label=$3 hash path root pruned target line mapped output
    local -A files=() links=()
    if [[ ! -f $prefix.sha256 ]]; then
        problem "$code" "$label: no record at $prefix.sha256"
        return
    fi
    mapped=$(mktemp) || { problem "$code" "$label: mktemp failed"; return; }
    while read -r hash path; do
        files["$ROOT$path"]=1
        hashed["$ROOT$path"]=1
        printf '%s  %s\n' "$hash" "$ROOT$path"
    done < "$prefix.sha256" > "$mapped"
    if [[ -f $prefix.links ]]; then
        while IFS=$'\t' read -r path target; do
            [[ -n $path ]] && links["$ROOT$path"]=$target
        done < "$prefix.links"
    fi
    if [[ -f $prefix.roots ]]; then
        while read -r root pruned; do
            [[ -n $root ]] || continue
            if [[ ! -d $ROOT$root ]]; then
                problem "$code" "$label: $root: folder missing"
                continue
            fi
            find "$ROOT$root" -name __pycache__ -type d -prune -exec rm -rf -- {} +
            local -a prune=(-name __pycache__)
            for name in $pruned; do prune+=(-o -name "$name"); done
            while IFS= read -r -d '' path; do
                if [[ -L $path && ! -f $path ]]; then
                    if [[ -z ${links[$path]+set} ]]; then
                        problem "$code" "$label: $path: link added"
                    fi
                elif [[ -z ${files[$path]+set} ]]; then
                    problem "$code" "$label: $path: added"
                fi
            done < <(find "$ROOT$root" \( "${prune[@]}" \) -prune -o ! -type d -print0)
        done < "$prefix.roots"
    fi
    for path in "${!links[@]}"; do
        if [[ ! -L $path || $(readlink -- "$path") != "${links[$path]}" ]]; then
            problem "$code" "$label: $path: link changed or missing"
        fi
    done
    if [[ -f $prefix.absent ]]; then
        while read -r path; do
            if [[ -n $path && ( -e $ROOT$path || -L $ROOT$path ) ]]; then
                problem "$code" "$label: $ROOT$path: exists (it would change what runs)"
            fi
        done < "$prefix.absent"
    fi
    if ! output=$(sha256sum --check --quiet --strict -- "$mapped" 2>&1); then
        while IFS= read -r line; do
            if [[ -n $line && $line != *"WARNING:"*"did NOT match"* ]]; then
                problem "$code" "$label: $line"
            fi
        done <<< "$output"
    fi
    rm -f -- "$mapped"
}

check_tests() {  # /tests holds exactly the files the export wrote (tests.sha256)
    local path output line
    local -A listed=()
    if [[ ! -f $TESTS/tests.sha256 ]]; then
        problem 10 "tests: no tests.sha256"
        return
    fi
    while read -r _ path; do listed["$path"]=1; done < "$TESTS/tests.sha256"
    find "$TESTS" -name __pycache__ -type d -prune -exec rm -rf -- {} +
    while IFS= read -r -d '' path; do
        path=${path#"$TESTS"/}
        if [[ $path != tests.sha256 && -z ${listed[$path]+set} ]]; then
            problem 10 "tests: $path: not part of the task (left in /tests before the upload?)"
        fi
    done < <(find "$TESTS" ! -type d -print0)
    if ! output=$(cd "$TESTS" && sha256sum --check --quiet --strict -- tests.sha256 2>&1); then
        while IFS= read -r line; do
            if [[ -n $line && $line != *"WARNING:"*"did NOT match"* ]]; then
                problem 10 "tests: $line"
            fi
        done <<< "$output"
    fi
}

for tool in sha256sum find mktemp readlink rm; do
    if ! command -v "$tool" > /dev/null; then
        problem 10 "cannot check: $tool is missing"
    fi
done
if [[ $status != 0 ]]; then exit "$status"; fi
if [[ -e $ROOT/etc/ld.so.preload ]]; then
    problem 10 "/etc/ld.so.preload exists: it would load a library into every program"
fi
check_tests
check "$TESTS/manifest" 10 "scorer"
check "$ROOT/opt/smellkit-build" 11 "environment"
if [[ -s $ROOT/opt/smellkit-build.python ]]; then
    python=$(< "$ROOT/opt/smellkit-build.python")
    if [[ -f $TESTS/manifest.python && $python != "$(< "$TESTS/manifest.python")" ]]; then
        problem 10 "scorer: the interpreter $python is not the pinned $(< "$TESTS/manifest.python")"
    elif [[ -z ${hashed[$ROOT$python]+set} ]]; then
        problem 10 "scorer: the interpreter $python is not recorded"
    fi
fi
exit "$status"
