"""Win / loss conditions, time limit and alliances."""
from engine import Simulation, load_level


def run(arena, h, teams, conditions, time_limit=60, until=None):
    lv = load_level(h.level_dict(teams, conditions=conditions, switches={"time_limit": time_limit}), base_dir=arena)
    return Simulation(lv).run(until=until)


SHOOTERS = [{"type": "light_bot", "x": 10, "y": 10, "count": 4, "spread": 1}]


def test_destroy_target_wins_for_team_and_allies(arena, h):
    teams = [h.team(0, SHOOTERS, allies=[2]), h.team(1, [{"type": "radar_tower", "x": 13.5, "y": 10.5, "tag": "hq"}]), h.team(2, [])]
    res = run(arena, h, teams, [{"kind": "destroy_target", "team": 0, "target": {"tag": "hq"}}])
    assert res.ended_by == "condition" and res.winners == [0, 2] and res.losers == [1]
    assert "destroyed every target (tag=hq)" in res.reason
    assert res.team_stats[0]["objectives"] == {"0:destroy_target": "met"}
    assert [e["event"] for e in res.trace[-4:]] == ["win", "win", "lose", "end"]


def test_destroy_target_deadline_loses(arena, h):
    teams = [h.team(0, []), h.team(1, [{"type": "wall", "x": 25.5, "y": 25.5, "tag": "hq"}])]
    res = run(arena, h, teams, [{"kind": "destroy_target", "team": 0, "target": {"tag": "hq"}, "deadline": 5}])
    assert res.winners == [1] and res.losers == [0] and res.duration == 5.0


def test_protect_target_any(arena, h):
    teams = [h.team(0, [{"type": "radar_tower", "x": 13.5, "y": 10.5, "tag": "vip"}, {"type": "wall", "x": 28.5, "y": 28.5, "tag": "vip"}]),
             h.team(1, SHOOTERS)]
    res = run(arena, h, teams, [{"kind": "protect_target", "team": 0, "target": {"tag": "vip"}, "mode": "any"}])
    assert res.losers == [0] and res.winners == [1] and "lost a protected unit" in res.reason


def test_protect_all_holds_while_one_stands_then_survive_wins(arena, h):
    teams = [h.team(0, [{"type": "radar_tower", "x": 13.5, "y": 10.5, "tag": "vip"}, {"type": "wall", "x": 28.5, "y": 28.5, "tag": "vip"}]),
             h.team(1, SHOOTERS)]
    res = run(arena, h, teams, [{"kind": "protect_target", "team": 0, "target": {"tag": "vip"}, "mode": "all"},
                                {"kind": "survive_until", "team": 0, "time": 30}])
    assert res.winners == [0] and res.duration == 30.0 and res.ended_by == "condition"
    assert res.team_stats[0]["objectives"]["0:protect_target"] == "held"


def test_produce_composition(arena, h):
    teams = [h.team(0, [{"type": "bot_lab", "x": 10.5, "y": 10.5}], resources={"metal": 2000, "energy": 20000}), h.team(1, [])]
    lv = load_level(h.level_dict(teams, conditions=[{"kind": "produce_composition", "team": 0, "units": {"scout": 2}, "deadline": 30}]),
                    base_dir=arena)
    sim = Simulation(lv)
    sim.issue(0, {"kind": "produce", "factory": 0, "type": "scout", "count": 2})
    res = sim.run()
    assert res.winners == [0] and 8.0 <= res.duration <= 9.0


def test_produce_composition_deadline(arena, h):
    teams = [h.team(0, []), h.team(1, [])]
    res = run(arena, h, teams, [{"kind": "produce_composition", "team": 0, "units": {"scout": 2}, "deadline": 10}])
    assert res.losers == [0] and res.winners == [1] and res.duration == 10.0


def test_last_survivor_ffa(arena, h):
    teams = [h.team(0, SHOOTERS), h.team(1, [{"type": "scout", "x": 13, "y": 10}]), h.team(2, [{"type": "scout", "x": 10, "y": 13}])]
    res = run(arena, h, teams, [{"kind": "last_survivor"}])
    assert res.winners == [0] and res.losers == [1, 2]


def test_time_limit_without_winner(arena, h):
    res = run(arena, h, [h.team(0, []), h.team(1, [])], [], time_limit=3)
    assert res.ended_by == "time_limit" and res.winners == [] and res.duration == 3.0


def test_rank_by_score_at_time_limit(arena, h):
    teams = [h.team(0, SHOOTERS), h.team(1, [{"type": "wall", "x": 13.5, "y": 10.5}]), h.team(2, [{"type": "scout", "x": 28, "y": 28}])]
    res = run(arena, h, teams, [{"kind": "rank_by_score", "metric": "damage_dealt"}], time_limit=5)
    assert res.ended_by == "time_limit" and res.winners == [0]
    assert res.ranks == {0: 1, 1: 2, 2: 2}


def test_run_until_stops_early(arena, h):
    res = run(arena, h, [h.team(0, []), h.team(1, [])], [], until=2)
    assert res.ended_by == "until" and res.duration == 2.0


NEUTRAL = {"controller": {"type": "none"}, "neutral": True}


def test_a_neutral_side_is_nobodys_enemy_and_has_no_part_in_how_the_game_ends(arena, h):
    # the shooters stand beside a neutral bot and a storage: nobody fires on them, and once the enemy's tower
    # is gone the player is the last side standing though the neutral units live on
    civilians = [{"type": "light_bot", "x": 12, "y": 10, "tag": "civ"}, {"type": "metal_storage", "x": 9.5, "y": 13.5}]
    teams = [h.team(0, SHOOTERS), h.team(1, [{"type": "radar_tower", "x": 13.5, "y": 10.5}],
                                         {"type": "ai", "behaviour": "idle"}),
             h.team(2, civilians, **NEUTRAL)]
    res = run(arena, h, teams, [{"kind": "last_survivor"}])
    assert res.ended_by == "condition" and res.winners == [0] and res.losers == [1]
    assert not [e for e in res.trace if e["event"] == "death" and e["team"] == 2]
    assert res.team_stats[2]["damage_received"] == 0 and res.team_stats[2]["objectives"] == {}
    # a condition may still be about neutral units: the player loses when the civilians it guards die
    guarded = run(arena, h, [h.team(0, []), h.team(1, SHOOTERS, {"type": "ai", "behaviour": "idle"}),
                             h.team(2, civilians, **NEUTRAL)],
                  [{"kind": "protect_target", "team": 0, "target": {"tag": "civ"}}], time_limit=5)
    assert guarded.ended_by == "time_limit" and guarded.winners == [] and 2 not in guarded.losers


def test_a_neutral_side_is_never_the_player_nor_anyones_ally(arena, h):
    import pytest
    from engine.errors import EngineError

    for teams in ([h.team(0, SHOOTERS, neutral=True), h.team(1, [])],
                  [h.team(0, SHOOTERS, allies=[2]), h.team(2, [], **NEUTRAL)],
                  [h.team(0, SHOOTERS), h.team(2, [], neutral=True)]):
        with pytest.raises((EngineError, ValueError), match="neutral team"):
            run(arena, h, teams, [])
