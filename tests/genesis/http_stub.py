"""A scripted OpenAI-compatible chat server on 127.0.0.1 for client tests (not a test module).

Each POST gets the next scripted (status, headers, body) reply; the server records every request
and the most requests it ever had in flight at once.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, dict[str, str], Any]


def completion(content: Any, **extra: Any) -> dict[str, Any]:
    """A chat completion body whose first choice says `content` (any JSON value, to test bad shapes)."""
    return {"id": "stub", "object": "chat.completion", "created": 0, "model": "stub",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}, **extra}


def ok(content: Any) -> Reply:
    return 200, {}, completion(content)


def rate_limited(retry_after: str | None = "2") -> Reply:
    return 429, {"retry-after": retry_after} if retry_after else {}, {"error": {"message": "rate limit reached"}}


class StubServer:
    def __init__(self, replies: list[Reply], delay_s: float = 0.0) -> None:
        self.replies, self.delay_s = list(replies), delay_s
        self.requests: list[dict[str, Any]] = []
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)) or 0)
                with stub._lock:
                    stub.requests.append(json.loads(body or b"{}"))
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                    status, headers, payload = (stub.replies.pop(0) if stub.replies else
                                                (500, {}, {"error": {"message": "the stub's script ran out"}}))
                time.sleep(stub.delay_s)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                for key, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                with stub._lock:
                    stub.in_flight -= 1

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> "StubServer":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class TrickleServer:
    """A chat server on 127.0.0.1 that sends its headers at once, then the body one byte per `interval_s`:
    each read succeeds long before a between-bytes timeout, so only a total deadline ends the call.
    It stops by itself after `max_s` seconds (the socket is closed mid-body)."""

    def __init__(self, body: bytes, interval_s: float = 0.5, max_s: float = 15.0) -> None:
        self.body, self.interval_s, self.max_s = body, interval_s, max_s
        self.requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)) or 0)
                stub.requests += 1
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(stub.body)))
                self.end_headers()
                stop = time.monotonic() + stub.max_s
                for byte in stub.body:
                    if time.monotonic() >= stop:
                        return
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(stub.interval_s)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> "TrickleServer":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
