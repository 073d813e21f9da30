"""Target acquisition: the bucketed search picks exactly what the every-pair search picks."""
import numpy as np
import pytest

from engine import Simulation, load_level
from engine.systems import combat
from engine.world import FIGHT

ROSTER = ["light_bot", "raider_bot", "artillery_bot", "rocket_bot", "fighter", "bomber", "light_turret", "aa_vehicle"]


def _crowd(arena, h, seed: int, n: int) -> Simulation:
    rng = np.random.default_rng(seed)
    # exact duplicates of positions make ties, which must go to the lowest id either way
    spots = rng.uniform(1, 31, size=(n // 2, 2)).round(1)
    teams = []
    for t in range(3):
        units = [{"type": ROSTER[int(rng.integers(len(ROSTER)))], "x": float(x), "y": float(y)}
                 for x, y in spots[rng.integers(0, len(spots), size=n // 3)]]
        teams.append(h.team(t, units))
    sim = Simulation(load_level(h.level_dict(teams, switches={"fog_of_war": True}), base_dir=arena), seed=seed)
    w = sim.world
    w.order[: w.count] = np.where(rng.random(w.count) < 0.5, FIGHT, w.order[: w.count])   # chasers reach farther
    return sim


@pytest.mark.parametrize("seed", range(6))
def test_bucketed_and_dense_searches_choose_the_same_targets(arena, h, seed, monkeypatch):
    sim = _crowd(arena, h, seed, 240)
    sim.vision.update()
    chosen = []
    for pairs in (10**12, 0):            # every pair, then always bucketed
        monkeypatch.setattr(combat, "DENSE_PAIRS", pairs)
        sim.world.target[:] = -1
        sim.combat.retarget(sim.vision)
        chosen.append(sim.world.target[: sim.world.count].copy())
    assert (chosen[0] >= 0).sum() > 20          # the crowd really fights
    assert np.array_equal(chosen[0], chosen[1])


@pytest.mark.parametrize("seed", range(6))
def test_dense_search_matches_the_full_pair_test(arena, h, seed):
    """The dense search decides most shooters from distances alone; it must choose what testing
    every pair in full (reach per enemy size, weapon kind, minimum range) chooses."""
    sim = _crowd(arena, h, seed, 240)
    w = sim.world
    rng = np.random.default_rng(seed)
    a = w.alive_idx[w.armed[w.alive_idx]]
    for _ in range(20):
        e = np.sort(rng.choice(w.alive_idx, size=int(rng.integers(1, 60)), replace=False))
        reach = rng.uniform(0.5, 14.0, size=a.size)
        fast = combat._nearest_dense(w, a, reach, e)
        assert np.array_equal(fast, combat._nearest_dense_pairs(w, a, reach, e))
    assert (fast >= 0).any() and (fast < 0).any()
