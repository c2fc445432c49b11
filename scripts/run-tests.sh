#!/usr/bin/env bash
# Set everything up, then run the whole check: generated sync code current, lint, format, the
# docs site, types, and the test suite (real Chromium, fake models, no network).
# Extra arguments go to pytest.
set -euo pipefail
. "$(dirname "$0")/setup.sh"
python scripts/unasync.py --check
ruff check .
ruff format --check .
NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet  # the docs site, into site/
mypy
echo "run-tests: setup and static checks took $SECONDS s"
started=$SECONDS
# In parallel: two pytest-xdist workers per core (`nproc`), each with its own browsers and page
# servers. A test spends about half its time waiting (a page settling, a deadline running
# out), so one worker per core leaves the cores half idle. --dist load hands every worker its
# tests in the order tests/conftest.py sorts them, so no worker runs an async test after a
# sync one. STAGEHAND_PY_TEST_WORKERS=N runs N workers; 0 runs serially.
status=0
python -m pytest -q -p no:cacheprovider -n "${STAGEHAND_PY_TEST_WORKERS:-$((2 * $(nproc)))}" \
    --dist load "$@" || status=$?
echo "run-tests: the test suite took $((SECONDS - started)) s"
exit "$status"
