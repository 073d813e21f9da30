"""Serves a review page on 127.0.0.1 and writes the choices it posts into review.json.

GET / or /review.html: the page; GET /review.json: the results on disk; POST /results: one
reviewer's choices (a Submission), merged into review.json atomically. Nothing else is served, and
a request body is bounded. After each save, `on_saved` runs (the CLI refreshes experiment.html).
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from genesis.review.page import results_path
from genesis.review.results import ResultsError, ReviewResults, Submission, merge_into

MAX_BODY = 2_000_000


class ReviewServer:
    def __init__(self, page: Path, port: int = 0, on_saved: Callable[[ReviewResults], None] | None = None) -> None:
        self.page, self.results = Path(page), results_path(Path(page))
        self.on_saved = on_saved
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/{self.page.name}"
        self._thread: threading.Thread | None = None

    def save(self, body: bytes) -> tuple[int, dict[str, Any]]:
        try:
            submission = Submission.model_validate_json(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            return 400, {"error": f"{'.'.join(map(str, first['loc'])) or 'body'}: {first['msg']}"}
        if any(j.kind != "human" for j in submission.judgements):
            return 400, {"error": "the page submits human choices only"}
        try:
            results = merge_into(self.results, submission.reviewer, "human", submission.judgements)
        except ResultsError as exc:
            return 400, {"error": str(exc)}
        if self.on_saved is not None:
            self.on_saved(results)
        return 200, {"saved": len(submission.judgements), "file": self.results.name}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, data: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.send_header("cache-control", "no-store")
                self.end_headers()
                self.wfile.write(data)

            def _json(self, status: int, obj: dict[str, Any]) -> None:
                self._send(status, json.dumps(obj).encode(), "application/json")

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                files = {"/": server.page, f"/{server.page.name}": server.page, f"/{server.results.name}": server.results}
                target = files.get(path)
                if target is None or not target.is_file():
                    return self._json(404, {"error": "not found"})
                kind = "application/json" if target.suffix == ".json" else "text/html; charset=utf-8"
                self._send(200, target.read_bytes(), kind)

            def do_POST(self) -> None:
                if self.path.split("?", 1)[0] != "/results":
                    return self._json(404, {"error": "not found"})
                try:
                    length = int(self.headers.get("content-length") or 0)
                except ValueError:
                    length = -1
                if not 0 < length <= MAX_BODY:
                    return self._json(413 if length > MAX_BODY else 400, {"error": f"a body of 1 to {MAX_BODY} bytes"})
                self._json(*server.save(self.rfile.read(length)))

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def start(self) -> "ReviewServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "ReviewServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
