"""What `genesis new` / `genesis resume` print on stdout: one run's result as a plain JSON object (`--json`), whose
`folder` alone is the plain output."""
from __future__ import annotations

from typing import Any


def result_of(outcome, exit_code: int) -> dict[str, Any]:
    """The verdict, the folder (None when a refusal removed it), the certificate's summary and the evidence."""
    v = outcome.validation or {}
    cert = v.get("certificate") or {}
    kept = outcome.record is None
    return {
        "verdict": v.get("verdict") or _verdict(outcome.status),
        "status": outcome.status,
        "exit_code": exit_code,
        "run_id": outcome.run_id,
        "folder": str(outcome.out_dir) if kept else None,
        "report": str(outcome.out_dir / "report.html") if kept and (outcome.out_dir / "report.html").is_file() else None,
        "refusal_record": str(outcome.record) if outcome.record is not None else None,
        "reason": v.get("reason", ""),
        "certificate": {"valid": cert.get("valid"), "difficulty": cert.get("difficulty"),
                        "skipped": cert.get("skipped"), "flags": cert.get("flags")} if cert else None,
        "requirements": [{"text": e.get("text"), "passed": e.get("passed"), "detail": e.get("detail")}
                         for e in v.get("requirements") or []],
        "unsupported": list(v.get("unsupported") or []),
        "backend": v.get("backend"),
        "generation_time_s": v.get("generation_time_s"),
        "usage": (v.get("usage") or {}).get("total"),
    }


def _verdict(status: str) -> str:
    return {"refused": "REFUSED", "infra_error": "INFRA ERROR"}.get(status, "NOT PLAYABLE")
