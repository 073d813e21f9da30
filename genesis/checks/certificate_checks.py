"""Stage 4: the validity certificate as a gate criterion. A level that plays but that a blind script,
a rush or an unchanging seed lets a cheap policy win measures nothing, so the level gate enforces it."""
from __future__ import annotations

from genesis.checks.context import CheckContext
from genesis.difficulty import difficulty_reason

MAX_DETAIL = 1500


def certificate_reason(cert: dict) -> str:
    """Every failing check with its detail, the flags and errors, then the levers that can fix them."""
    why = [f"{name}: {c.get('detail', '')}" for name, c in (cert.get("checks") or {}).items() if not c.get("passed")]
    why += list(cert.get("flags") or []) + [f"error: {e}" for e in cert.get("errors") or []]
    levers = list(cert.get("levers") or [])
    text = "; ".join(why) + (f". Levers: {'; '.join(levers)}" if levers else "")
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL].rsplit(" ", 1)[0] + " …"


def certificate(ctx: CheckContext) -> tuple[bool, str]:
    cert = ctx.certificate
    if cert is None:
        return False, "no certificate: the level did not pass the other criteria, so its certificate was not judged"
    if cert.get("skipped"):
        return True, f"certificate skipped ({cert['skipped']}): the level is playable but not certified"
    if cert.get("valid"):
        band = cert.get("difficulty")
        return True, "certified" + (f" ({band})" if band else "") + ": " + "; ".join(
            c.get("detail", "") for c in (cert.get("checks") or {}).values())
    return False, "not certified: " + certificate_reason(cert)


def difficulty(ctx: CheckContext) -> tuple[bool, str]:
    if ctx.difficulty and ctx.certificate is None:
        return False, f"asked for {ctx.difficulty}: no certificate, so no band (the other level criteria failed)"
    return difficulty_reason(ctx.difficulty, ctx.certificate, ctx.difficulty_search)


CHECKS = {"certificate": certificate, "difficulty": difficulty}
