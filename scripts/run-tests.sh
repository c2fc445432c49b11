#!/usr/bin/env bash
# Set everything up, then run the whole check: generated sync code current, lint, format, the
# docs site, types, and the test suite (real Chromium, fake models, no network).
# Extra arguments go to pytest.
set -euo pipefail
. "$(dirname "$0")/setup.sh"
# Compiled modules are kept: with PYTHONDONTWRITEBYTECODE (some environments set it), every
# worker and every Python a test starts would compile the package and the tests again.
unset PYTHONDONTWRITEBYTECODE
# While the static checks run on one core, collect the tests once on the other: pytest keeps
# the tests compiled with its assertion rewriting, and on a fresh clone every worker would
# otherwise do that itself (about 5 s of CPU each).
python -m pytest -q -p no:cacheprovider --collect-only >/dev/null 2>&1 &
collecting=$!
python scripts/unasync.py --check
ruff check .
ruff format --check .
NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet  # the docs site, into site/
mypy
wait "$collecting" || true
echo "run-tests: setup and static checks took $SECONDS s"
started=$SECONDS
# In parallel: five pytest-xdist workers for every two cores (`nproc`), each with its own
# browsers and page servers. A test spends a good part of its time waiting (on a page, a
# deadline, a hung model), so more workers than cores keep the cores busy; measured on 2 cores,
# 4 workers left them 15% idle, 5 left 8%. --dist load with --maxschedchunk 1 hands out the
# tests one at a time in the order tests/conftest.py sorts them: no worker runs an async test
# after a sync one, and none is left holding a long run of tests while the others stop.
# Then the tests marked `alone`, serially: deadline tests on enormous pages, whose
# uninterruptible layout grows with the load beside it.
# STAGEHAND_PY_TEST_WORKERS=N runs N workers; 0 runs everything serially in one go.
workers="${STAGEHAND_PY_TEST_WORKERS:-$(($(nproc) * 5 / 2))}"
status=0
run() {
    local code=0
    python -m pytest -q -p no:cacheprovider "$@" || code=$?
    # 5: the arguments selected no test in this part, which is fine if the other part ran some.
    if [ "$code" = 5 ]; then empty=$((empty + 1)); elif [ "$code" != 0 ]; then status=$code; fi
}
empty=0
if [ "$workers" = 0 ]; then
    run "$@"
    parts=1
else
    run -n "$workers" --dist load --maxschedchunk 1 --alone=exclude "$@"
    run --alone=only "$@"
    parts=2
fi
if [ "$status" = 0 ] && [ "$empty" = "$parts" ]; then status=5; fi
echo "run-tests: the test suite took $((SECONDS - started)) s"
exit "$status"
