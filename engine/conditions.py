"""Declarative win / loss conditions from the level config, checked every few ticks.

Each condition yields verdicts; the simulation turns them into the end of the run:
  Verdict("win", team)  -> team and its allies win, everyone else loses, the run ends.
  Verdict("lose", team) -> team's alliance is out; when one alliance is left it wins.
  Verdict("rank", ranks=...) -> rank 1 (with allies) wins, the rest lose, the run ends.
  Verdict("out", team) -> that team alone is out (its allies play on); when one alliance is left it wins.
A side with nothing left is out: one that had units and has none, unless something may still bring
it back — a rule spawned units for it, or it is an AI side of a level with rules (a rule feeding a
side waves or relief columns decides itself when that side has lost, with lose()) — or the level
ranks its sides by score (there a side without units is ranked with the others, by the metric).
`objectives()` reports each condition's state per team for RunResult.team_stats.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.schema.level import (
    DestroyTarget,
    LastSurvivor,
    ProduceComposition,
    ProtectTarget,
    RankByScore,
    SurviveUntil,
    TargetSelector,
)
from engine.world import TeamState, World


@dataclass
class Verdict:
    kind: str                       # "win" | "lose" | "rank" | "draw" | "out"
    team: int | None = None
    reason: str = ""
    ranks: dict[int, int] | None = None


@dataclass
class _State:
    status: str = "pending"         # pending | met | failed | held | ranked
    seen: set[int] = field(default_factory=set)


def describe(sel: TargetSelector) -> str:
    parts = [f"{k}={v}" for k, v in (("team", sel.team), ("tag", sel.tag), ("type", sel.type)) if v is not None]
    return " ".join(parts)


class Conditions:
    def __init__(self, conditions: list, world: World, teams: dict[int, TeamState],
                 rule_fed: set[int] | frozenset[int] = frozenset(), rule_driven: frozenset[int] = frozenset()):
        self.conditions = conditions
        self.rule_fed = rule_fed            # sides a rule has spawned units for (grows during the run)
        self.rule_driven = rule_driven      # sides rules may feed at any time (AI sides of a level with rules)
        self.had_units: set[int] = set()
        self.emptied: set[int] = set()
        self._emptied_version = -1
        self.ranked = any(isinstance(c, RankByScore) for c in conditions)
        self.world = world
        self.teams = teams
        self.states = [_State() for _ in conditions]
        self.eliminated_at: dict[int, float] = {}   # team -> time its last unit died (survival metric)
        self.initial_alliances = len({t.allies for t in teams.values()})
        self._present_version = -1
        self._present: dict[bool, set[int]] = {}

    def _match(self, sel: TargetSelector) -> np.ndarray:
        return self.world.select(team=sel.team, tag=sel.tag, type_name=sel.type)

    def evaluate(self, now: float, at_time_limit: bool = False) -> list[Verdict]:
        w = self.world
        out: list[Verdict] = []
        self._track_eliminations(now)
        for cond, st in zip(self.conditions, self.states):
            if st.status in ("met", "failed", "ranked"):
                continue
            if isinstance(cond, DestroyTarget):
                ids = self._match(cond.target)
                if ids.size:
                    st.seen.update(ids.tolist())
                elif st.seen:
                    st.status = "met"
                    out.append(Verdict("win", cond.team, f"team {cond.team} destroyed every target ({describe(cond.target)})"))
                    continue
                if cond.deadline is not None and now >= cond.deadline:
                    st.status = "failed"
                    out.append(Verdict("lose", cond.team, f"team {cond.team} did not destroy the target ({describe(cond.target)}) by {cond.deadline:g} s"))
            elif isinstance(cond, ProtectTarget):
                ids = self._match(cond.target)
                st.seen.update(ids.tolist())
                if not st.seen:
                    continue
                lost = [i for i in st.seen if not w.alive[i]]
                if (cond.mode == "any" and lost) or (cond.mode == "all" and len(lost) == len(st.seen)):
                    st.status = "failed"
                    what = "a protected unit" if cond.mode == "any" else "every protected unit"
                    out.append(Verdict("lose", cond.team, f"team {cond.team} lost {what} ({describe(cond.target)})"))
                else:
                    st.status = "held"
            elif isinstance(cond, SurviveUntil):
                if now >= cond.time - 1e-9:
                    st.status = "met"
                    out.append(Verdict("win", cond.team, f"team {cond.team} survived until {cond.time:g} s"))
            elif isinstance(cond, ProduceComposition):
                have = self._composition(cond.team)
                if all(have.get(k, 0) >= n for k, n in cond.units.items()):
                    st.status = "met"
                    want = ", ".join(f"{n} {k}" for k, n in cond.units.items())
                    out.append(Verdict("win", cond.team, f"team {cond.team} produced the composition ({want})"))
                elif cond.deadline is not None and now >= cond.deadline:
                    st.status = "failed"
                    out.append(Verdict("lose", cond.team, f"team {cond.team} did not produce the composition by {cond.deadline:g} s"))
            elif isinstance(cond, LastSurvivor):
                v = self._last_survivor(cond)
                if v is not None:
                    st.status = "met"
                    out.append(v)
            elif isinstance(cond, RankByScore):
                due = (cond.time is not None and now >= cond.time - 1e-9) or (cond.time is None and at_time_limit)
                if due:
                    st.status = "ranked"
                    ranks = self.rank(cond.metric)
                    first = sorted(t for t, r in ranks.items() if r == 1)
                    out.append(Verdict("rank", first[0] if first else None,
                                       f"ranked by {cond.metric}: " + ", ".join(f"team {t} #{r}" for t, r in sorted(ranks.items(), key=lambda kv: (kv[1], kv[0]))),
                                       ranks=ranks))
        out += self._nothing_left(now)
        return out

    def _nothing_left(self, now: float) -> list[Verdict]:
        """Sides that had units and have none left (read again only after a spawn or a death)."""
        if self.ranked or self._emptied_version == self.world.version:
            return []
        self._emptied_version = self.world.version
        present = self._present_teams(False)
        self.had_units |= present & self.teams.keys()
        gone = sorted(self.had_units - present - self.rule_fed - self.rule_driven - self.emptied)
        self.emptied.update(gone)
        return [Verdict("out", t, f"team {t} has nothing left at {now:g} s") for t in gone]

    # --- helpers ----------------------------------------------------------------------------------
    def _composition(self, team: int) -> dict[str, int]:
        w = self.world
        idx = w.select(team=team)
        idx = idx[w.progress[idx] >= 1.0]
        names = w.types.names
        counts = np.bincount(w.type[idx], minlength=len(names))
        return {names[i]: int(c) for i, c in enumerate(counts) if c}

    def _present_teams(self, mobile_only: bool) -> set[int]:
        """Teams with a living unit (a mobile one with `mobile_only`): kept until a spawn or death."""
        w = self.world
        if self._present_version != w.version:
            self._present_version, self._present = w.version, {}
        teams = self._present.get(mobile_only)
        if teams is None:
            idx = w.alive_idx
            if mobile_only:
                idx = idx[w.speed[idx] > 0]
            teams = self._present[mobile_only] = set(w.team[idx].tolist())
        return teams

    def _alliances_with_units(self, mobile_only: bool) -> set[frozenset[int]]:
        return {self.teams[t].allies for t in self._present_teams(mobile_only) if t in self.teams}

    def _last_survivor(self, cond: LastSurvivor) -> Verdict | None:
        if self.initial_alliances < 2:
            return None
        left = self._alliances_with_units(cond.mobile_only)
        if len(left) == 1:
            alliance = next(iter(left))
            team = min(alliance)
            names = ", ".join(str(t) for t in sorted(alliance))
            return Verdict("win", team, f"last survivor: team(s) {names} are the only ones left")
        if not left:
            return Verdict("draw", None, "last survivor: every side was destroyed")
        return None

    def _track_eliminations(self, now: float) -> None:
        present = self._present_teams(False)
        for t in self.teams:
            if t not in present and t not in self.eliminated_at:
                self.eliminated_at[t] = now

    def score(self, metric: str) -> dict[int, float]:
        w = self.world
        out: dict[int, float] = {}
        for t, team in self.teams.items():
            s = team.stats
            ids = w.select(team=t)
            hp = float(w.hp[ids].sum())
            if metric == "damage_efficiency":
                out[t] = s["damage_dealt"] / max(s["damage_received"], 1.0)
            elif metric == "survival":
                # alive teams beat eliminated ones; among those, remaining hp, then time of elimination
                out[t] = 1e9 + hp if t not in self.eliminated_at else self.eliminated_at[t]
            elif metric == "kills":
                out[t] = float(s["units_killed"])
            elif metric == "damage_dealt":
                out[t] = s["damage_dealt"]
            elif metric == "units_alive":
                out[t] = float(ids.size)
            else:  # hp_remaining
                out[t] = hp
        return out

    def rank(self, metric: str) -> dict[int, int]:
        """Competition ranking (1, 2, 2, 4): equal scores share a rank."""
        scores = self.score(metric)
        ordered = sorted(scores.items(), key=lambda kv: (-round(kv[1], 6), kv[0]))
        ranks: dict[int, int] = {}
        for pos, (t, s) in enumerate(ordered):
            prev = ordered[pos - 1] if pos else None
            ranks[t] = ranks[prev[0]] if prev and round(prev[1], 6) == round(s, 6) else pos + 1
        return ranks

    def objectives(self, team: int, winners: list[int]) -> dict[str, str]:
        """Condition index:kind -> state, for the conditions that concern `team`.

        Shared conditions (last_survivor, rank_by_score) report "won" / "lost" once resolved.
        """
        out: dict[str, str] = {}
        if team not in self.teams:      # a neutral side has no stake in any condition
            return out
        allies = self.teams[team].allies
        for i, (cond, st) in enumerate(zip(self.conditions, self.states)):
            owner = getattr(cond, "team", None)
            if owner is None:
                out[f"{i}:{cond.kind}"] = st.status if st.status == "pending" else ("won" if team in winners else "lost")
            elif owner in allies:
                out[f"{i}:{cond.kind}"] = st.status
        return out
