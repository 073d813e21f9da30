"""Streaming economy: income once a second, spending as build progress happens.

Income: every finished unit's energy income plus metal income (extractors only count the deposit
under them: `income_mult` holds its richness, 0 off-deposit). Storage caps income, never confiscates
resources a team already has (a level may start a team above its storage).
Spending: builders (factories and constructors) each want `build_power / build_time` progress per
second, costing that fraction of the unit's price. When a team cannot pay for all its builders
this step, every builder of that team advances by the same affordable fraction — progress stalls
instead of going into debt.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.world import TeamState, World


@dataclass
class BuildJob:
    builder: int
    type_idx: int
    progress_rate: float      # fraction of the unit per second at full speed


class Economy:
    def __init__(self, world: World, teams: dict[int, TeamState]):
        self.world = world
        self.teams = teams

    def income(self, dt: float) -> None:
        w = self.world
        t = w.types
        idx = w.alive_idx
        idx = idx[w.progress[idx] >= 1.0]
        ti = w.type[idx]
        metal = t.metal_income[ti] * np.where(t.needs_deposit[ti], w.income_mult[idx], 1.0) * dt
        energy = t.energy_income[ti] * dt
        teams = w.team[idx]
        m_in = np.bincount(teams, weights=metal, minlength=16)
        e_in = np.bincount(teams, weights=energy, minlength=16)
        m_cap = np.bincount(teams, weights=t.storage_metal[ti], minlength=16)
        e_cap = np.bincount(teams, weights=t.storage_energy[ti], minlength=16)
        for tid, team in self.teams.items():
            new_m = min(team.metal + m_in[tid], max(m_cap[tid], team.metal))
            new_e = min(team.energy + e_in[tid], max(e_cap[tid], team.energy))
            team.stats["metal_gathered"] += new_m - team.metal
            team.stats["energy_gathered"] += new_e - team.energy
            team.metal, team.energy = new_m, new_e

    def income_rates(self, team: int) -> tuple[float, float]:
        """(metal/s, energy/s) the team currently earns."""
        w = self.world
        t = w.types
        idx = w.alive_idx
        idx = idx[(w.progress[idx] >= 1.0) & (w.team[idx] == team)]
        ti = w.type[idx]
        metal = float((t.metal_income[ti] * np.where(t.needs_deposit[ti], w.income_mult[idx], 1.0)).sum())
        return metal, float(t.energy_income[ti].sum())

    def fund(self, jobs: list[BuildJob], dt: float) -> dict[int, float]:
        """Charge each team for its jobs; returns builder id -> progress gained this step."""
        t = self.world.types
        by_team: dict[int, list[BuildJob]] = {}
        for job in jobs:
            by_team.setdefault(int(self.world.team[job.builder]), []).append(job)
        gained: dict[int, float] = {}
        for tid, team_jobs in sorted(by_team.items()):
            team = self.teams[tid]
            want_m = sum(j.progress_rate * dt * t.cost_metal[j.type_idx] for j in team_jobs)
            want_e = sum(j.progress_rate * dt * t.cost_energy[j.type_idx] for j in team_jobs)
            frac = 1.0
            if want_m > team.metal:
                frac = min(frac, team.metal / want_m)
            if want_e > team.energy:
                frac = min(frac, team.energy / want_e)
            frac = max(0.0, frac)
            spent_m, spent_e = want_m * frac, want_e * frac
            team.metal = max(0.0, team.metal - spent_m)
            team.energy = max(0.0, team.energy - spent_e)
            team.stats["metal_spent"] += spent_m
            team.stats["energy_spent"] += spent_e
            for j in team_jobs:
                gained[j.builder] = j.progress_rate * dt * frac
        return gained
