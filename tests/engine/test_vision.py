"""Fog of war: sight discs, allied sharing, and that unseen enemies are not targeted."""
from engine import Simulation, load_level


def make(arena, h, teams, fog=True):
    return Simulation(load_level(h.level_dict(teams, switches={"fog_of_war": fog}), base_dir=arena))


def test_sight_disc_and_visible_units(arena, h):
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 5.5, "y": 5.5}]),
                          h.team(1, [{"type": "light_bot", "x": 12.5, "y": 5.5}, {"type": "light_bot", "x": 28.5, "y": 28.5}])])
    grid = sim.vision.grids[0]
    assert grid[5, 5] and grid[5, 14] and not grid[5, 20] and not grid[28, 28]   # light_bot sight 9
    assert sim.visible_units(0).tolist() == [0, 1]
    assert sim.snapshot().visible[0].shape == (32, 32)


def test_allies_share_vision(arena, h):
    sim = make(arena, h, [h.team(0, [{"type": "light_bot", "x": 5.5, "y": 5.5}], allies=[2]),
                          h.team(1, [{"type": "light_bot", "x": 28.5, "y": 28.5}]),
                          h.team(2, [{"type": "scout", "x": 26.5, "y": 26.5}])])
    assert 1 in sim.visible_units(0).tolist()


def test_unseen_enemies_are_not_targeted(arena, h):
    # artillery (range 12) sees only 9 tiles: a wall 11 tiles away stays untouched under fog
    teams = [h.team(0, [{"type": "artillery_bot", "x": 5.5, "y": 10.5}]), h.team(1, [{"type": "wall", "x": 16.5, "y": 10.5}])]
    fog = make(arena, h, teams, fog=True)
    fog.step(60)
    assert fog.world.hp[1] == fog.world.max_hp[1]
    clear = make(arena, h, teams, fog=False)
    clear.step(60)
    assert clear.world.hp[1] < clear.world.max_hp[1]


def test_fog_off_sees_everything(arena, h):
    sim = make(arena, h, [h.team(0, []), h.team(1, [{"type": "light_bot", "x": 28.5, "y": 28.5}])], fog=False)
    assert sim.visible_units(0).tolist() == [0]
    assert sim.snapshot().visible == {}


def test_row_spans_stamp_the_same_discs_as_cells():
    """Many discs go through the row-span sum, a few cell by cell: both mark the same tiles."""
    import numpy as np

    from engine.systems.vision import _disc, stamp_discs

    rng = np.random.default_rng(3)
    width, height, pad = 60, 50, 14
    size = width * height
    cells = (rng.integers(pad, height - pad, 400) * width + rng.integers(pad, width - pad, 400)).astype(np.int64)
    radii = rng.choice([3, 9, 12], 400).astype(np.int64)

    def one_by_one(n):
        out = np.zeros(size, dtype=bool)
        for c, r in zip(cells[:n].tolist(), radii[:n].tolist()):
            dy, dx = _disc(r)
            out[c + dy * width + dx] = True
        return out

    spans = stamp_discs(size, width, cells, radii)              # 400 discs: row spans
    few = stamp_discs(size, width, cells[:3], radii[:3])        # 3 discs: cell by cell
    assert np.array_equal(spans, one_by_one(400))
    assert np.array_equal(few, one_by_one(3))
    assert 0 < few.sum() < spans.sum()


def test_tiles_tested_against_discs_match_the_stamped_grid(arena, h, monkeypatch):
    """Acquisition asks about tiles disc by disc (small armies) or reads the stamped grid: the same
    answer for every tile, allies' discs included."""
    import numpy as np

    from engine.systems import vision

    rng = np.random.default_rng(5)
    units = lambda n: [{"type": t, "x": float(x), "y": float(y)} for t, x, y in
                       zip(rng.choice(["light_bot", "scout", "artillery_bot"], n), rng.uniform(1, 31, n), rng.uniform(1, 31, n))]
    teams = [h.team(0, units(4), allies=[2]), h.team(1, units(5)), h.team(2, units(3))]
    by_disc, by_grid = make(arena, h, teams), make(arena, h, teams)
    ty, tx = np.divmod(np.arange(32 * 32), 32)
    seen = [by_disc.vision.sees_tiles(team, tx, ty) for team in (0, 1, 2)]
    assert not by_disc.vision._grids            # answered without stamping
    monkeypatch.setattr(vision, "PAIR_TESTS", 0)
    for team in (0, 1, 2):
        assert np.array_equal(seen[team], by_grid.vision.sees_tiles(team, tx, ty))
        assert np.array_equal(seen[team], by_grid.vision.grids[team].ravel())
        assert 0 < seen[team].sum() < seen[team].size
    assert (seen[0] & ~seen[1]).any() and (seen[2] == seen[0]).all()   # allies 0 and 2 share
