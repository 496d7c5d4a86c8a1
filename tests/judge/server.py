"""A chat-completions server on loopback with scripted replies: the judge's client talks real
HTTP to it through the openai SDK, and the tests count what it was asked.

A script is a function of (request body, request number) returning an action: `Reply` (a
completion with its text, finish reason and token counts), `Status` (an HTTP error, optionally
with a Retry-After header) or `Hang` (sleep past the client's time-out, then answer nothing).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from smellkit.judge.rubric import GENERAL


@dataclass(frozen=True)
class Reply:
    content: str
    finish_reason: str = "stop"
    prompt_tokens: int = 100
    completion_tokens: int = 20


@dataclass(frozen=True)
class Status:
    code: int
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    seconds: float


Action = Reply | Status | Hang
Script = Callable[[dict[str, Any], int], Action]


@dataclass
class ScriptedServer:
    script: Script
    requests: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> ScriptedServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with owner._lock:
                    owner.requests.append(body)
                    number = len(owner.requests) - 1
                action = owner.script(body, number)
                if isinstance(action, Hang):
                    time.sleep(action.seconds)
                    return
                if isinstance(action, Status):
                    payload = json.dumps({"error": {"message": f"scripted {action.code}",
                                                    "type": "scripted"}}).encode()
                    self.send_response(action.code)
                    if action.retry_after is not None:
                        self.send_header("retry-after", str(action.retry_after))
                else:
                    payload = json.dumps(completion(body, action)).encode()
                    self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def count(self) -> int:
        with self._lock:
            return len(self.requests)


def completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                         "message": {"role": "assistant", "content": reply.content}}],
            "usage": {"prompt_tokens": reply.prompt_tokens,
                      "completion_tokens": reply.completion_tokens,
                      "total_tokens": reply.prompt_tokens + reply.completion_tokens}}


def prompt_text(body: dict[str, Any]) -> str:
    return "\n".join(str(message.get("content", "")) for message in body.get("messages", []))


def verdict_json(body: dict[str, Any], general: dict[str, float], other: float = 5.0) -> str:
    """A full valid verdict for the request: the general scores given, every criterion the
    request's schema asks for at `other` (only the general ones without a schema)."""
    mark = lambda score: {"score": score, "justification": "scripted"}  # noqa: E731
    reply: dict[str, Any] = {key: mark(general.get(key, other)) for key in GENERAL}
    schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema")
    if schema:
        properties = schema["properties"]
        reply["smell_specific"] = {key: mark(other)
                                   for key in properties["smell_specific"]["properties"]}
        for key in properties:
            if key not in reply and key not in ("smell_specific", "summary"):
                reply[key] = mark(other)
    reply["summary"] = "scripted verdict"
    return json.dumps(reply)


def scores(se: float, cc: float, ss: float, cq: float) -> dict[str, float]:
    return dict(zip(GENERAL, (se, cc, ss, cq)))
