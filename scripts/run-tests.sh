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
# In parallel: one pytest-xdist worker per core (`nproc`), each with its own browsers and page
# servers. --dist load hands every worker its tests in the order tests/conftest.py sorts them,
# so no worker runs an async test after a sync one. STAGEHAND_PY_TEST_WORKERS=N runs N
# workers, 0 serially. Two per core finish sooner (a test spends about half its time waiting),
# but then the deadline tests on enormous pages share a core with three other browsers, and
# a page's layout can outlast the time a call has to stop it.
status=0
python -m pytest -q -p no:cacheprovider -n "${STAGEHAND_PY_TEST_WORKERS:-$(nproc)}" \
    --dist load "$@" || status=$?
echo "run-tests: the test suite took $((SECONDS - started)) s"
exit "$status"
