"""Run an example with no model of yours: the stand-in model (``stand_in.py``) answers as a
local OpenAI-compatible server on 127.0.0.1, like Ollama or vLLM would.

    python offline/run.py fill_form.py              # from examples/
    python ../offline/run.py -m pytest              # from examples/test_checkout_suite/

The example runs unchanged, in a process of its own, with ``STAGEHAND_PY_MODEL`` and
``STAGEHAND_PY_BASE_URL`` pointing at the stand-in (any other model settings are dropped, so
nothing reaches a real model). When it ends, the number of requests the stand-in answered is
printed to stderr; the exit code is the example's.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from typing import Any

import stand_in

MODEL = "stand-in"


class _Handler(http.server.BaseHTTPRequestHandler):
    requests = 0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests += 1
        try:
            call = _answer(body)
        except LookupError as error:
            self._send(400, {"error": {"message": str(error), "type": "invalid_request_error"}})
            return
        call["arguments"] = json.dumps(call["arguments"])
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
        }
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        self._send(200, {"id": "stand-in", "object": "chat.completion", "created": 0,
                         "model": MODEL, "choices": [choice], "usage": usage})  # fmt: skip

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    """The tool call answering one chat-completions request."""
    texts = [m for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], str)]
    choice = body.get("tool_choice")
    if isinstance(choice, dict):  # a structured answer, forced as one named tool
        name = choice["function"]["name"]
        prompt = "\n".join(m["content"] for m in texts)
        return {"name": name, "arguments": stand_in.answer(name, prompt)}
    return stand_in.act_step(texts[0]["content"], texts[-1]["content"])


def main(arguments: list[str]) -> int:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.pop("STAGEHAND_PY_FAKE", None)
    env["STAGEHAND_PY_MODEL"] = f"openai/{MODEL}"
    env["STAGEHAND_PY_BASE_URL"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        done = subprocess.run([sys.executable, *arguments], env=env, check=False)
    finally:
        server.shutdown()
        server.server_close()
    print(f"stand-in model: {_Handler.requests} request(s)", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
