"""A loopback OpenAI-compatible server that answers from a scripted JSONL file, for tests and demos.

    with serve_scripted("replies.jsonl", fail_first=2) as server:
        model = get_model("openai/scripted", api_base=server.url)

The stage comes from the `X-Rewardsmith-Role` header (default "any") and picks lines with the same rule as
the `scripted:` model. The first `fail_first` requests get HTTP `fail_status` (to exercise retries). When
the script has no line left for a role the server answers HTTP 400 with an OpenAI-style error body: a
client error, so clients report it at once instead of retrying.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rewardsmith.errors import ScriptExhaustedError
from rewardsmith.llm.litellm_model import ROLE_HEADER
from rewardsmith.llm.scripted import Script

MODEL_ID = "scripted"


@dataclass
class ScriptedServer:
    """A running loopback server: `url` to point a client at, `requests` the JSON bodies it received."""

    url: str
    script: Script
    fail_first: int
    fail_status: int
    requests: list[dict[str, Any]] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any], role: str) -> tuple[int, dict[str, Any]]:
        """The status and JSON body for one chat completion request."""
        with self._lock:
            self.requests.append(body)
            self.roles.append(role)
            failing = len(self.requests) <= self.fail_first
        if failing:
            return self.fail_status, _error(f"scripted failure {len(self.requests)}/{self.fail_first}", "server_error")
        if body.get("stream"):
            return 400, _error("the scripted server does not stream; send stream=false", "invalid_request_error")
        try:
            line = self.script.take(role)
        except ScriptExhaustedError as exc:
            return 400, _error(str(exc), "invalid_request_error", code="script_exhausted")
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        prompt_tokens, completion_tokens = prompt_chars // 4, len(line.content) // 4
        return 200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", MODEL_ID),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": line.content}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _error(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(
                    200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "rewardsmith"}]}
                )
            else:
                self._send(404, _error(f"no route GET {self.path}", "invalid_request_error"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, _error(f"no route POST {self.path}", "invalid_request_error"))
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._send(400, _error("request body is not JSON", "invalid_request_error"))
                return
            self._send(*server.answer(body, self.headers.get(ROLE_HEADER) or "any"))

    return Handler


@contextmanager
def serve_scripted(
    jsonl_path: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    fail_first: int = 0,
    fail_status: int = 503,
) -> Iterator[ScriptedServer]:
    """Serve `jsonl_path` as an OpenAI-compatible API on `host:port` (0: a free port) in a background thread."""
    server = ScriptedServer(url="", script=Script(Path(jsonl_path)), fail_first=fail_first, fail_status=fail_status)
    httpd = ThreadingHTTPServer((host, port), _handler(server))
    httpd.daemon_threads = True
    server.url = f"http://{host}:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, name="scripted-openai-server", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
