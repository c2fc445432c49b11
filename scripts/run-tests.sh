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
python -m pytest -q -p no:cacheprovider "$@"
