"""Unit roles of the reference policy: a scout finds a base under fog for the army, a VIP held back
survives untouched while the army fights, an escorted unit reaches its point. Each game is also
played without the role (or with the unit alone) to show the role is what wins it."""
from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from engine import Simulation, load_level
from engine.agent import make_policy
from engine.schema.level import LevelConfig
from engine.sim import TICK_HZ

SIZE = 64


def game(arena_dir, h, units0, units1, reference, *, controller1=None, conditions=(), fog=True, time_limit=300,
         policy="reference"):
    h.write_map(arena_dir, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, units0), h.team(1, units1, controller=controller1 or {"type": "none"})],
                       conditions=list(conditions), switches={"fog_of_war": fog, "time_limit": time_limit})
    cfg["metadata"] = {"reference": reference}
    level = load_level(cfg, base_dir=arena_dir)
    return Simulation(level, seed=0, policies={0: make_policy(policy, team=0)})


def tagged(sim, tag: str) -> int:
    w = sim.world
    return next(i for i in range(w.count) if w.tags[i] == tag)


# --- scout ---------------------------------------------------------------------------------------
def scout_game(tmp_path, h, base, roles):
    bx, by = base
    reference = {"strategy": "attack", "target_tag": "core", "target_team": 1}
    if roles:
        reference["roles"] = roles
    return game(tmp_path, h,
                [{"type": "light_tank", "x": 8.5, "y": 32.5, "count": 6, "spread": 2},
                 {"type": "scout", "x": 8.5, "y": 38.5, "tag": "eye"}],
                [{"type": "metal_storage", "x": bx, "y": by, "tag": "core"},
                 {"type": "light_turret", "x": bx - 2, "y": by + 3}],
                reference, conditions=[{"kind": "destroy_target", "team": 0, "target": {"team": 1, "tag": "core"}}])


@pytest.mark.parametrize("base", [(54.5, 10.5), (30.5, 56.5)])
def test_scout_finds_the_base_under_fog_and_the_army_destroys_it(tmp_path, h, base):
    sim = scout_game(tmp_path, h, base, [{"role": "scout", "tag": "eye"}])
    result = sim.run()
    assert result.winners == [0], result.reason
    eye = tagged(sim, "eye")
    assert sim.world.is_alive(eye) and sim.world.hp[eye] == sim.world.max_hp[eye]   # it never fought
    # without the role nobody looks: the army never learns where the base is
    blind = scout_game(tmp_path, h, base, None).run()
    assert 0 not in blind.winners and blind.ended_by == "time_limit"


def test_scout_looks_at_its_waypoints_in_order_first(tmp_path, h):
    waypoints = [[56.0, 58.0], [8.0, 6.0]]       # far apart: neither is seen on the way to the other
    sim = scout_game(tmp_path, h, (54.5, 10.5), [{"role": "scout", "tag": "eye", "waypoints": waypoints}])
    eye = tagged(sim, "eye")
    sim.run(until=30)
    goals = [[e["x"], e["y"]] for e in sim.trace.events if e["event"] == "order" and e.get("units") == [eye]]
    assert goals[:2] == waypoints, goals


# --- hold back -----------------------------------------------------------------------------------
def vip_game(tmp_path, h, roles, controller1):
    reference = {"strategy": "fight"}
    if roles:
        reference["roles"] = roles
    return game(tmp_path, h,
                [{"type": "light_tank", "x": 14.5, "y": 32.5, "count": 6, "spread": 2},
                 {"type": "scout", "x": 16.5, "y": 37.5, "tag": "vip"}],
                [{"type": "light_bot", "x": 50.5, "y": 30.5, "count": 10, "spread": 2},
                 {"type": "raider_bot", "x": 40.5, "y": 56.5, "count": 2, "spread": 1}],
                reference, controller1=controller1, fog=False,
                conditions=[{"kind": "protect_target", "team": 0, "target": {"team": 0, "tag": "vip"}},
                            {"kind": "last_survivor", "mobile_only": True}])


WAVES = {"type": "ai", "behaviour": "waves", "target": {"team": 0}, "first_at": 0, "interval": 20}


@pytest.mark.parametrize("controller1", [None, WAVES], ids=["enemy_waits", "enemy_attacks"])
def test_vip_held_back_stays_out_of_range_while_the_army_fights(tmp_path, h, controller1):
    sim = vip_game(tmp_path, h, [{"role": "hold_back", "tag": "vip"}], controller1)
    w = sim.world
    vip = tagged(sim, "vip")
    closest = math.inf        # the VIP's least distance to an enemy beyond that enemy's weapon range
    while not sim.done:
        sim.step(15)
        enemies = w.alive_idx[w.team[w.alive_idx] == 1]
        if enemies.size and w.is_alive(vip):
            gap = np.hypot(w.x[enemies] - w.x[vip], w.y[enemies] - w.y[vip]) - w.w_range[enemies]
            closest = min(closest, float(gap.min()))
    assert sim.result.winners == [0], sim.result.reason
    assert w.hp[vip] == w.max_hp[vip] and closest > 0
    # without the role the fast VIP runs ahead with the army and is shot
    old = vip_game(tmp_path, h, None, controller1)
    result = old.run()
    assert not old.world.is_alive(vip) and 0 in result.losers


def _gaps_to_enemy_range(sim, vip: int, until: float = 120) -> list[float]:
    """Each sample's least distance from the VIP to an enemy beyond that enemy's weapon range."""
    w, gaps = sim.world, []
    while not sim.done and sim.time < until:
        sim.step(15)
        enemies = w.alive_idx[w.team[w.alive_idx] == 1]
        if enemies.size and w.is_alive(vip):
            gaps.append(float((np.hypot(w.x[enemies] - w.x[vip], w.y[enemies] - w.y[vip]) - w.w_range[enemies]).min()))
    return gaps


def test_hold_back_margin_sets_how_far_beyond_enemy_range_the_unit_backs_off(tmp_path, h):
    """A stand-off unit (a spotter) with margin 0 stays nearer the fight than the default, yet out of range."""
    near = vip_game(tmp_path, h, [{"role": "hold_back", "tag": "vip", "margin": 0.0, "behind": 2}], WAVES)
    default = vip_game(tmp_path, h, [{"role": "hold_back", "tag": "vip", "behind": 2}], WAVES)
    near_gaps = _gaps_to_enemy_range(near, tagged(near, "vip"))
    default_gaps = _gaps_to_enemy_range(default, tagged(default, "vip"))
    vip = tagged(near, "vip")
    assert near.world.hp[vip] == near.world.max_hp[vip] and min(near_gaps) > -0.5
    assert np.median(near_gaps) < np.median(default_gaps)


# --- escort --------------------------------------------------------------------------------------
DEST = (56.5, 32.5)


def escort_game(tmp_path, h, roles, army_at=(8.5, 28.5), policy="reference"):
    reference = {"strategy": "defend"}
    if roles:
        reference["roles"] = roles
    ax, ay = army_at
    return game(tmp_path, h,
                [{"type": "light_tank", "x": ax, "y": ay, "count": 6, "spread": 2},
                 {"type": "constructor_vehicle", "x": 6.5, "y": 32.5, "tag": "convoy"}],
                # the far wall keeps the ambushers' side in the game once its bots fall (a side with
                # nothing left is out, and the game would end before the convoy arrives)
                [{"type": "light_bot", "x": 32.5, "y": 26.5, "count": 6, "spread": 2},
                 {"type": "wall", "x": 60.5, "y": 60.5}],
                reference, controller1={"type": "ai", "behaviour": "defend", "center": {"x": 32.5, "y": 30.5},
                                        "radius": 10},
                conditions=[{"kind": "protect_target", "team": 0, "target": {"team": 0, "tag": "convoy"}}],
                policy=policy)


def test_escorted_unit_reaches_its_point_untouched_through_an_ambush(tmp_path, h):
    roles = [{"role": "escort", "tag": "convoy", "to": list(DEST)}]
    sim = escort_game(tmp_path, h, roles)
    w = sim.world
    convoy = tagged(sim, "convoy")
    sim.run(until=200)
    assert w.is_alive(convoy) and w.hp[convoy] == w.max_hp[convoy]
    assert math.dist((w.x[convoy], w.y[convoy]), DEST) < 2.0
    ambush = w.alive_idx[(w.team[w.alive_idx] == 1) & (w.speed[w.alive_idx] > 0)]
    assert not ambush.size                               # the guards cleared the ambush
    # alone, the same unit driving to the same point dies in the ambush
    alone = escort_game(tmp_path, h, None, policy="idle")
    alone.step(1)
    assert alone.issue(0, {"kind": "move", "units": [convoy], "x": DEST[0], "y": DEST[1]})[0]
    alone.run(until=200)
    assert not alone.world.is_alive(convoy) and 0 in alone.result.losers
    # without the role the reference never moves it
    old = escort_game(tmp_path, h, None)
    old.run(until=200)
    assert math.dist((old.world.x[convoy], old.world.y[convoy]), (6.5, 32.5)) < 1.0


def test_escorted_unit_waits_for_far_guards(tmp_path, h):
    sim = escort_game(tmp_path, h, [{"role": "escort", "tag": "convoy", "to": list(DEST)}], army_at=(8.5, 56.5))
    w = sim.world
    convoy = tagged(sim, "convoy")
    sim.step(4 * TICK_HZ)
    assert math.dist((w.x[convoy], w.y[convoy]), (6.5, 32.5)) < 1.0       # the guards are still ~20 tiles off
    sim.step(36 * TICK_HZ)
    assert w.x[convoy] > 12                                             # they came, it goes


def test_roles_take_their_units_first_and_guards_come_from_the_rest_of_the_army(tmp_path, h):
    roles = [{"role": "escort", "tag": "convoy", "to": list(DEST), "guards": 4},
             {"role": "hold_back", "tag": "vip"}, {"role": "scout", "type": "scout"}]
    sim = game(tmp_path, h,
               [{"type": "light_tank", "x": 8.5, "y": 28.5, "count": 6, "spread": 2},
                {"type": "scout", "x": 8.5, "y": 36.5, "tag": "vip"},
                {"type": "scout", "x": 9.5, "y": 37.5},
                {"type": "constructor_vehicle", "x": 6.5, "y": 32.5, "tag": "convoy"}],
               [{"type": "light_bot", "x": 56.5, "y": 56.5}], {"strategy": "defend", "roles": roles})
    sim.step(1)
    ref = sim.policies[0]
    escort, held, scout = ref.roles
    assert held.units == [6] and scout.units == [7] and escort.units == [8]
    assert len(escort.guards) == 4 and set(escort.guards) < set(range(6))
    assert sorted(ref.army(sim).tolist()) == sorted(set(range(6)) - set(escort.guards))


def test_produce_never_takes_a_builder_a_role_owns(tmp_path, h):
    def builds_by_convoy(roles):
        reference = {"strategy": "produce", "target": {"light_bot": 2}, "roles": roles}
        sim = game(tmp_path, h,
                   [{"type": "light_tank", "x": 8.5, "y": 28.5, "count": 2},
                    {"type": "constructor_vehicle", "x": 6.5, "y": 32.5, "tag": "convoy"}],
                   [{"type": "light_bot", "x": 56.5, "y": 56.5}], reference, fog=False)
        convoy = tagged(sim, "convoy")
        sim.run(until=20)
        return [e for e in sim.trace.events if e["event"] == "order" and e.get("kind") == "build"
                and e.get("units") == [convoy]]

    assert builds_by_convoy([])          # the builder the role below takes is otherwise put to work
    assert not builds_by_convoy([{"role": "escort", "tag": "convoy", "to": list(DEST)}])


# --- the data ------------------------------------------------------------------------------------
@pytest.mark.parametrize("roles, needle", [
    ([{"role": "escort", "tag": "convoy"}], "needs `to`"),
    ([{"role": "scout"}], "by `tag` or `type`"),
    ([{"role": "spy", "tag": "x"}], "role"),
    ([{"role": "scout", "tag": "x", "speed": 3}], "speed"),
    ({"role": "scout", "tag": "x"}, "a list"),
    ([{"role": "scout", "tag": "eye"}, {"role": "hold_back", "tag": "vip", "type": "scout"}],
     "roles.1: no start unit of team 0 has tag 'vip' and type 'scout'"),
])
def test_bad_roles_are_rejected_with_their_place(h, roles, needle):
    cfg = h.level_dict([h.team(0, [{"type": "scout", "x": 2.5, "y": 2.5, "tag": "eye"},
                                   {"type": "light_bot", "x": 4.5, "y": 2.5, "tag": "vip"}])])
    cfg["metadata"] = {"reference": {"strategy": "attack", "roles": roles}}
    with pytest.raises(ValidationError) as err:
        LevelConfig.model_validate(cfg)
    assert "metadata.reference.roles" in str(err.value) and needle in str(err.value)


def test_a_role_of_a_player_whose_army_a_rule_spawns_is_checked_when_the_game_starts(tmp_path, h):
    """With no placed start unit (a seeded layout spawns the army) the schema cannot check a role: the
    reference does, at the start, and a role matching nothing stops the game rather than do nothing."""
    sim = game(tmp_path, h, [], [{"type": "light_bot", "x": 40.5, "y": 32.5}],
               {"strategy": "attack", "roles": [{"role": "kite", "tag": "kiters", "count": 2}]})
    with pytest.raises(ValueError, match="roles.0: no start unit of team 0 has tag 'kiters'"):
        sim.run(until=1)


def test_a_role_of_units_a_rule_spawns_at_the_start_beside_placed_ones_is_taken_by_them(tmp_path, h):
    """Placed guards and workers a rule scatters at the start: the schema cannot see the workers, so it leaves
    the check to the reference, which gives the role to them once they stand on the map."""
    h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
    (tmp_path / "workers.lua").write_text("function on_start() spawn(0, 'constructor_bot', 10, 50, 2, 'worker') end")
    cfg = h.level_dict([h.team(0, [{"type": "light_bot", "x": 32.5, "y": 32.5, "count": 2}]),
                        h.team(1, [{"type": "light_bot", "x": 60.5, "y": 60.5}], controller={"type": "none"})],
                       rules=[{"id": "workers", "script": "workers.lua"}], switches={"time_limit": 30})
    cfg["metadata"] = {"reference": {"strategy": "defend", "roles": [
        {"role": "hold_back", "tag": "worker", "count": 2, "at": [12.5, 12.5]}]}}
    sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})
    sim.run(until=25)
    workers = sim.world.select(team=0, tag="worker")
    assert workers.size == 2 and all(math.dist(sim.world.pos[i], (12.5, 12.5)) < 4 for i in workers)


# --- kite ----------------------------------------------------------------------------------------
def kite_game(tmp_path, h, roles, enemies=6):
    reference = {"strategy": "fight"}
    if roles:
        reference["roles"] = roles
    return game(tmp_path, h, [{"type": "rocket_bot", "x": 32.5, "y": 32.5, "count": 5, "tag": "squad"}],
                [{"type": "assault_bot", "x": 52.5, "y": 32.5, "count": enemies}], reference,
                controller1={"type": "ai", "behaviour": "waves", "target": {"team": 0}, "first_at": 0, "interval": 5},
                fog=False, time_limit=240)


def test_kiting_rocket_bots_beat_slower_shorter_ranged_bots_that_outfight_them_head_on(tmp_path, h):
    sim = kite_game(tmp_path, h, [{"role": "kite", "tag": "squad", "count": 5}])
    result = sim.run()
    assert result.winners == [0], result.reason
    # the same squad fighting as one army (attack-move onto the nearest enemy) is destroyed
    head_on = kite_game(tmp_path, h, None).run()
    assert head_on.winners == [1], head_on.reason


# --- hold_zone follows a drawn zone ------------------------------------------------------------------
def test_hold_zone_follows_the_capture_zone_area_a_rule_moves(tmp_path, h):
    (tmp_path / "zone.lua").write_text("""
    local zone
    function on_start() zone = area_circle(20, 32, 3, "capture zone") end
    every(40, function() move_area(zone, 44, 32) end)
    """)
    h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, [{"type": "light_tank", "x": 8.5, "y": 8.5, "count": 3, "spread": 2}]),
                        h.team(1, [{"type": "metal_storage", "x": 60.5, "y": 60.5}], controller={"type": "none"})],
                       rules=[{"id": "zone", "script": "zone.lua"}], switches={"fog_of_war": False, "time_limit": 120})
    cfg["metadata"] = {"reference": {"strategy": "hold_zone", "zone": [20, 32]}}
    sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})
    tanks = [i for i in range(sim.world.count) if sim.world.team[i] == 0]

    def mean_x():
        return float(np.mean(sim.world.x[tanks]))

    while sim.time < 38:
        sim.step()
    assert abs(mean_x() - 20) < 4          # at the first place the zone was drawn
    sim.run(until=100)
    assert abs(mean_x() - 44) < 4          # and after the rule moved it


def test_hold_zone_goes_for_the_nearest_area_of_the_label_it_is_given(tmp_path, h):
    (tmp_path / "crates.lua").write_text("""
    function on_start()
      area_circle(50, 50, 2, "supply crate")
      area_circle(16, 12, 2, "supply crate")
      area_circle(40, 40, 3, "capture zone")
    end
    """)
    h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, [{"type": "light_tank", "x": 8.5, "y": 8.5, "count": 3, "spread": 2}]),
                        h.team(1, [{"type": "metal_storage", "x": 60.5, "y": 60.5}], controller={"type": "none"})],
                       rules=[{"id": "crates", "script": "crates.lua"}], switches={"fog_of_war": False, "time_limit": 60})
    cfg["metadata"] = {"reference": {"strategy": "hold_zone", "label": "supply crate", "pick": "nearest"}}
    sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})
    tanks = [i for i in range(sim.world.count) if sim.world.team[i] == 0]
    sim.run(until=30)
    at = (float(np.mean(sim.world.x[tanks])), float(np.mean(sim.world.y[tanks])))
    assert math.dist(at, (16, 12)) < 4, at     # the nearer crate, not the newest area nor the capture zone


def test_a_cloaked_escorted_unit_backs_off_only_from_enemies_whose_side_detects_it(tmp_path, h):
    from engine.agent.reference.roles import threats

    h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, [{"type": "scout", "x": 20.5, "y": 20.5}]),
                        h.team(1, [{"type": "light_bot", "x": 23.5, "y": 20.5},
                                   {"type": "scout", "x": 40.5, "y": 40.5}], controller={"type": "none"})],
                       switches={"fog_of_war": False, "time_limit": 60})
    sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={})
    w, bot, drone = sim.world, np.array([1]), 2
    assert threats(sim, 0, bot).tolist() == [1]
    w.cloaked[0], w.cloak_used = True, True
    assert threats(sim, 0, bot).size == 0                  # undetected: the bot cannot fire at it
    w.detect[drone] = 30.0
    assert threats(sim, 0, bot).tolist() == [1]            # the drone's side sees it now
    w.no_fire[1] = True
    assert threats(sim, 0, bot).size == 0                  # a unit forbidden to fire is no threat


def test_an_escort_goes_to_the_destination_a_rule_draws(tmp_path, h):
    (tmp_path / "dest.lua").write_text("function on_start() area_circle(50, 12, 3, 'evac pad') end")
    h.write_map(tmp_path, h.open_rows(SIZE, SIZE))
    cfg = h.level_dict([h.team(0, [{"type": "commander", "x": 8.5, "y": 8.5, "tag": "vip"},
                                   {"type": "light_tank", "x": 10.5, "y": 10.5, "count": 3, "spread": 2}]),
                        h.team(1, [{"type": "metal_storage", "x": 60.5, "y": 60.5}], controller={"type": "none"})],
                       rules=[{"id": "dest", "script": "dest.lua"}], switches={"fog_of_war": False, "time_limit": 120})
    cfg["metadata"] = {"reference": {"strategy": "fight", "roles": [{"role": "escort", "tag": "vip",
                                                                      "to_label": "evac pad"}]}}
    sim = Simulation(load_level(cfg, base_dir=tmp_path), seed=0, policies={0: make_policy("reference", team=0)})
    sim.run(until=90)
    assert math.dist((sim.world.x[0], sim.world.y[0]), (50, 12)) < 3
