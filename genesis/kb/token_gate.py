"""A token gate in front of a chroma server: `chroma run` (chromadb 1.x) has no authentication of its
own, so `genesis kb serve` with a `kb_token` runs it on a loopback port and answers on the public
address itself, passing on only requests that carry the token (chromadb's TokenAuthClientProvider
sends it as `Authorization: Bearer TOKEN`; `X-Chroma-Token: TOKEN` is accepted too).

A refused request gets chroma's own `AuthError` body, so the client raises ChromaAuthError; a
chroma server that does not answer gives 503, which clients treat as the server being down."""

from __future__ import annotations

import hmac
import threading
import time
from typing import Any

# never passed on: connection-level headers, the token itself, and what httpx already decoded
_DROPPED = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailers",
            "transfer-encoding", "upgrade", "host", "content-length", "content-encoding",
            "authorization", "x-chroma-token"}
MIN_TOKEN_CHARS = 16
UPSTREAM_TIMEOUT_S = 300.0


class TokenError(ValueError):
    """A token kb serve refuses to use."""


def check_token(token: str) -> None:
    """A header-safe token long enough not to be guessed (chromadb's client allows the same characters)."""
    import string

    if len(token) < MIN_TOKEN_CHARS:
        raise TokenError(f"kb_token has {len(token)} characters; use at least {MIN_TOKEN_CHARS} "
                         "(e.g. `python -c \"import secrets; print(secrets.token_urlsafe(24))\"`)")
    if not set(token) <= set(string.digits + string.ascii_letters + string.punctuation):
        raise TokenError("kb_token may hold only ASCII letters, digits and punctuation")


def masked(token: str) -> str:
    """Enough to tell two tokens apart in a log, never enough to use one."""
    return f"{token[:2]}…{token[-2:]} ({len(token)} characters)"


def presented(headers: Any) -> str | None:
    """The token a request carries, if any."""
    bearer = headers.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        return bearer[7:].strip()
    return headers.get("x-chroma-token")


def app(token: str, upstream: str):
    """The ASGI application: checks every request's token, then forwards it to `upstream`."""
    import httpx
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response

    expected = token.encode()
    clients: list[httpx.AsyncClient] = []  # made inside the server's event loop, on first use

    async def gate(scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        given = presented(request.headers)
        if given is None or not hmac.compare_digest(given.encode(), expected):
            why = "no token" if given is None else "a wrong token"
            response: Response = JSONResponse(
                {"error": "AuthError", "message": f"this KB chroma server needs its token (kb_token); the request had {why}"},
                status_code=401)
        else:
            if not clients:
                clients.append(httpx.AsyncClient(base_url=upstream, timeout=UPSTREAM_TIMEOUT_S))
            url = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            headers = {k: v for k, v in request.headers.items() if k.lower() not in _DROPPED}
            try:
                answer = await clients[0].request(request.method, url, headers=headers, content=await request.body())
            except httpx.TransportError as err:
                response = JSONResponse({"error": "Unavailable", "message": f"the chroma server did not answer: {err}"},
                                        status_code=503)
            else:
                response = Response(answer.content, status_code=answer.status_code,
                                    headers={k: v for k, v in answer.headers.items() if k.lower() not in _DROPPED})
        await response(scope, receive, send)

    return gate


class Gate:
    """The gate served by uvicorn in a thread of `kb serve` (whose main thread waits on chroma)."""

    def __init__(self, token: str, upstream: str, host: str, port: int):
        import uvicorn

        self.server = uvicorn.Server(uvicorn.Config(app(token, upstream), host=host, port=port, lifespan="off",
                                                    access_log=False, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, name="kb-token-gate", daemon=True)

    def start(self, timeout_s: float) -> None:
        """Returns once the gate listens; raises OSError when it cannot (the port is taken)."""
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"the token gate could not listen on {self.server.config.host}:{self.server.config.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
