#!/usr/bin/env bash
# Prove the dependency floors of pyproject.toml: install the lowest versions it allows for every
# direct dependency (the package's, and its test extra's) into a throwaway virtual environment
# with uv's --resolution lowest-direct, print them, and run a smoke subset of the tests there:
# the model SDKs over the loopback wire server, both page views (the aria view calls
# aria_snapshot(mode="ai", boxes=True)), act, extract, the sitemap reader, the pytest plugin,
# the agent's allowed_domains check (a DevTools read), a busy page stopped at a call's deadline
# (before Playwright 1.65: DevTools requests take no timeout, and a sync call's task records
# its caller differently), files set from a variable, credentials from the keychain and the
# package without the anthropic extra.
#
# Usage: scripts/test-lowest.sh [extra pytest arguments]. LOWEST_PYTHON picks the interpreter;
# by default the lowest Python the package supports (3.10) when this machine has one (on PATH
# or under pyenv), else python3. Needs Chromium (scripts/setup.sh installs it) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

lowest_python() {
    local candidate
    for candidate in python3.10 "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.10*/bin/python; do
        if "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 10))' 2>/dev/null; then
            echo "$candidate"
            return
        fi
    done
    echo python3
}
PYTHON="${LOWEST_PYTHON:-$(lowest_python)}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
started=$SECONDS

"$PYTHON" -m venv "$WORK/venv"
VENV_PYTHON="$WORK/venv/bin/python"
"$VENV_PYTHON" -m pip install -q --disable-pip-version-check uv
"$WORK/venv/bin/uv" pip install -q --python "$VENV_PYTHON" --resolution lowest-direct -e ".[test]"

echo "lowest allowed direct dependencies, installed with $("$VENV_PYTHON" --version):"
"$WORK/venv/bin/uv" pip list --python "$VENV_PYTHON" 2>/dev/null \
    | grep -iE '^(playwright|pydantic|openai|httpx2|lxml|anthropic|keyring|pytest|pytest-playwright|pytest-asyncio|pytest-xdist) ' \
    | sed 's/^/  /'

SMOKE=(
    tests/test_smoke.py
    tests/_async/test_llm_wire.py
    tests/_sync/test_aria_snapshot.py
    tests/_sync/test_act.py
    tests/_sync/test_extract.py
    tests/_sync/test_workflow_sitemap.py
    tests/test_optional_anthropic.py
    "tests/test_plugin.py::test_fixtures_fake_chromium_and_failure_report"
    "tests/_async/test_swapped_elements.py::test_a_redirect_the_driver_has_not_reported_yet_gets_no_action"
    "tests/_sync/test_hardening_deadlines.py::test_the_module_level_inspection_calls_end_at_their_timeout_on_a_busy_page"
    "tests/_sync/test_hardening_deadlines.py::test_a_page_that_spins_after_a_click_is_stopped_at_the_deadline"
    "tests/_async/test_hardening_deadlines.py::test_the_module_level_inspection_calls_end_at_their_timeout_on_a_busy_page"
    tests/test_deadline_watchdog.py
    "tests/_sync/test_hardening_deadlines.py::test_a_devtools_read_of_a_busy_page_ends_at_its_limit_where_requests_take_no_timeout"
    "tests/_sync/test_act_methods.py::test_files_are_set_from_a_variable"
    "tests/_sync/test_act_methods.py::test_a_file_that_cannot_be_read_is_a_typed_error_that_keeps_its_path_to_itself"
    tests/test_credentials.py
)
# The throwaway environment's python and pystagehand come first, whatever venv is active.
PATH="$WORK/venv/bin:$PATH" PYTHONPATH="$PWD" \
    "$VENV_PYTHON" -m pytest -q -p no:cacheprovider "${SMOKE[@]}" "$@"
echo "test-lowest: floors hold ($((SECONDS - started)) s)"
