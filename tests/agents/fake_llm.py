"""A scripted OpenAI-compatible chat-completions endpoint on loopback: the one fake of the agent suite.

Only the LLM is fake; the clients that talk to it (the `openai` package, the agent SDKs) are the real ones,
over real HTTP. The reply to a request is chosen by how many assistant messages its history already has, so
the same script drives any client that resends the conversation (as every chat-completions client does).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Call:
    """A tool call the model asks for."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One model answer: tool calls, or a text reply."""

    calls: tuple[Call, ...] = ()
    text: str | None = None


def completion(step: Step, model: str, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": step.text}
    if step.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in step.calls
        ]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if step.calls else "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class FakeLLM:
    """`with FakeLLM(script) as llm:` serves `llm.base_url` (…/v1) until the block ends."""

    def __init__(self, script: Sequence[Step]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                owner.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                step = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
                if step >= len(owner.script):
                    self._send(400, {"error": {"message": f"script has no step {step}"}})
                    return
                self._send(200, completion(owner.script[step], body.get("model", "fake"), len(owner.requests)))

            def _send(self, status: int, doc: dict[str, Any]) -> None:
                data = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
