#!/usr/bin/env bash
# Set up a fresh Debian machine: Debian's Chromium (Playwright cannot download browsers here),
# a virtual environment in .venv, and the package with its test and dev extras.
# Idempotent; sourced by run-demo.sh and run-tests.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

APT_PACKAGES=()
if [ -z "${STAGEHAND_PY_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1; then
    APT_PACKAGES+=(chromium)
fi
# Debian's own python3 ships without venv/ensurepip.
if ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
    APT_PACKAGES+=(python3-venv)
fi
# Headless runs prefer Chromium's headless shell (about half the CPU of the full browser);
# not every distribution packages it, so it is tried apart and may be missing.
WANT_SHELL=""
if [ -z "${STAGEHAND_PY_CHROMIUM:-}" ] && command -v apt-get >/dev/null 2>&1 \
    && ! command -v chromium-headless-shell >/dev/null 2>&1; then
    WANT_SHELL=chromium-headless-shell
fi
if [ "${#APT_PACKAGES[@]}" -gt 0 ] || [ -n "$WANT_SHELL" ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
    if [ "${#APT_PACKAGES[@]}" -gt 0 ]; then
        $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${APT_PACKAGES[@]}" >/dev/null
    fi
    if [ -n "$WANT_SHELL" ]; then
        $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$WANT_SHELL" >/dev/null \
            || echo "setup: no $WANT_SHELL package here; headless runs use the full Chromium" >&2
    fi
fi

VENV="${STAGEHAND_PY_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
fi
# shellcheck disable=SC1091
. "$VENV/bin/activate"
if ! python -c "import stagehand_py, pytest_playwright, mypy, ruff" >/dev/null 2>&1 \
    || [ pyproject.toml -nt "$VENV/.stagehand_py_installed" ]; then
    python -m pip install -q --upgrade pip
    python -m pip install -q -e ".[dev]"
    touch "$VENV/.stagehand_py_installed"
fi
