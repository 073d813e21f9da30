"""The outcome of a run: who won, why, when, per-team statistics and the trace."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from engine.trace import canonical

EndedBy = Literal["condition", "time_limit", "rule", "error", "until"]
Outcome = Literal["won", "lost", "undecided"]


def team_outcome(winners: list[int], losers: list[int], team: int) -> Outcome:
    """How a run ended for `team`: the one reading of winners and losers that the engine's result,
    validation and the certificate share. A side that went out is a loser even when the others'
    game ran on to the time limit."""
    if team in winners:
        return "won"
    return "lost" if team in losers else "undecided"


@dataclass
class RunResult:
    winners: list[int]
    losers: list[int]
    reason: str
    duration: float
    ended_by: EndedBy
    error: str | None = None
    ranks: dict[int, int] | None = None
    team_stats: dict[int, dict[str, Any]] = field(default_factory=dict)
    trace: list[dict] = field(default_factory=list)
    trace_hash: str = ""
    trace_path: str | None = None
    seed: int = 0
    seed_independent: bool = False    # no seeded draw and only deterministic policies: every seed plays this game

    def outcome(self, team: int) -> Outcome:
        return team_outcome(self.winners, self.losers, team)

    def to_dict(self, with_trace: bool = True) -> dict[str, Any]:
        data = asdict(self)
        if not with_trace:
            data.pop("trace")
        return data

    def write_trace(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(canonical(e) + "\n" for e in self.trace), encoding="utf-8")
        self.trace_path = str(path)
        return path

    def summary(self) -> str:
        """Human-readable lines for the CLI."""
        who = ", ".join(map(str, self.winners)) or "none"
        lines = [f"winner(s): {who}", f"loser(s): {', '.join(map(str, self.losers)) or 'none'}",
                 f"reason: {self.reason}", f"ended by: {self.ended_by}",
                 f"duration: {self.duration:.1f} s"]
        if self.error:
            lines.append(f"error: {self.error}")
        if self.ranks:
            lines.append("ranks: " + ", ".join(f"team {t}: {r}" for t, r in sorted(self.ranks.items())))
        for team, stats in sorted(self.team_stats.items()):
            parts = [f"{k}={v:.0f}" if isinstance(v, float) else f"{k}={v}" for k, v in stats.items() if k != "objectives"]
            lines.append(f"team {team}: " + " ".join(parts))
            for name, status in stats.get("objectives", {}).items():
                lines.append(f"  objective {name}: {status}")
        lines.append(f"trace hash: {self.trace_hash}")
        return "\n".join(lines)
