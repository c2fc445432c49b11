#!/usr/bin/env bash
# Set everything up, then run the whole check: generated sync code current, lint, format, the
# docs site, types, and the test suite (real Chromium, fake models, no network).
# Extra arguments go to pytest.
set -euo pipefail
. "$(dirname "$0")/setup.sh"
# Compiled modules are kept: with PYTHONDONTWRITEBYTECODE (some environments set it), every
# worker and every Python a test starts would compile the package and the tests again.
unset PYTHONDONTWRITEBYTECODE
# Node.js keeps the Playwright driver's compiled code here: every driver a test starts (one per
# worker and per process a test runs) then starts quicker.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-${TMPDIR:-/tmp}/stagehand-py-node-cache}"
echo "run-tests: setup took $SECONDS s"
checked=$SECONDS
# STAGEHAND_PY_TEST_WORKERS=N runs N workers; 0 runs everything serially in one go.
workers="${STAGEHAND_PY_TEST_WORKERS:-$(($(nproc) * 5 / 2))}"
status=0
empty=0
parts=0
tests() { python -m pytest -q -p no:cacheprovider "$@"; }
record() {
    parts=$((parts + 1))
    # 5: the arguments selected no test in this part, which is fine if another part ran some.
    if [ "$1" = 5 ]; then empty=$((empty + 1)); elif [ "$1" != 0 ]; then status=$1; fi
}
# First, beside the static checks (which use one core), the tests marked `alone`: deadline
# tests whose page has work of its own to finish after the deadline (an enormous page's
# uninterruptible layout, a chunk queued behind the stopped script), which grows with the
# load beside it. On the
# way pytest compiles the tests with its assertion rewriting, which the workers then reuse
# instead of each doing it again (about 5 s of CPU each on a fresh clone).
alone=""
alone_log="$(mktemp)"
trap 'rm -f "$alone_log"; if [ -n "$alone" ]; then kill "$alone" 2>/dev/null || true; fi' EXIT
if [ "$workers" != 0 ]; then
    tests --alone=only "$@" >"$alone_log" 2>&1 &
    alone=$!
fi
python scripts/unasync.py --check
ruff check .
ruff format --check .
NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet  # the docs site, into site/
mypy
code=0
if [ "$workers" = 0 ]; then
    tests "$@" || code=$?
    record "$code"
else
    wait "$alone" || code=$?
    alone=""
    cat "$alone_log"
    record "$code"
    # Then the rest in parallel: five pytest-xdist workers for every two cores (`nproc`), each
    # with its own browsers and page servers. A test spends a good part of its time waiting
    # (on a page, a deadline, a hung model), so more workers than cores keep the cores busy;
    # measured on 2 cores, 4 workers left them 15% idle, 5 left 8%. --dist load with
    # --maxschedchunk 1 hands out the tests one at a time in the order tests/conftest.py sorts
    # them: no worker runs an async test after a sync one, and none is left holding a long
    # run of tests while the others stop.
    code=0
    tests -n "$workers" --dist load --maxschedchunk 1 --alone=exclude "$@" || code=$?
    record "$code"
fi
if [ "$status" = 0 ] && [ "$empty" = "$parts" ]; then status=5; fi
echo "run-tests: after setup, the static checks and the test suite took $((SECONDS - checked)) s"
exit "$status"
