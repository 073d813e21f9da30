"""The corpus and its independent checker, on hand-made scenario folders: the checker passes an aligned
scenario and catches a wrong direction, a wrong team count, a silent substitution, a too-small main
attack and a protected unit whose loss does not lose."""
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from corpus.check import check_folder, main as check_main
from corpus.measure import measure
from corpus.schema import Expected, load_corpus

# open_field is 48 x 48: centre (24, 24); named spawns west (5.5, 24.5), east (43.5, 24.5), north (24.5, 5.5)
WEST, EAST, NORTH, SOUTH = (5.5, 24.5), (43.5, 24.5), (24.5, 5.5), (24.5, 43.5)
ITEM3_FAMILIES = {"ffa", "directions", "flanks", "front_times", "production_attack", "growth", "probe_main", "hold",
                  "deadline", "air_raids", "protect", "existing", "refused", "not_honoured"}


def _spawns(t, team, at, n, unit="light_bot", first_id=100):
    return [{"event": "spawn", "id": first_id + i, "source": "rule", "t": t, "team": team, "type": unit,
             "x": at[0] + i * 0.5, "y": at[1]} for i in range(n)]


def _end(t, winners, losers):
    return [{"event": "win", "t": t, "team": w, "reason": "r"} for w in winners] + \
           [{"event": "lose", "t": t, "team": x, "reason": "r"} for x in losers] + \
           [{"event": "end", "t": t, "ended_by": "rule", "reason": "r", "winners": winners, "losers": losers}]


def _team(i, units=(), allies=()):
    return {"id": i, "name": f"T{i}", "allies": list(allies), "controller": {"type": "agent" if i == 0 else "none"},
            "units": list(units)}


def scenario(tmp_path: Path, *, teams=None, rules=(), waves=(), ref_end=(300, [0], [1]), idle_end=(90, [1], [0]),
             extra_events=(), unsupported=(), playable=True, production=False, name="s") -> Path:
    folder = tmp_path / name
    (folder / "runs").mkdir(parents=True)
    teams = teams or [_team(0, [{"type": "metal_storage", "x": 24.5, "y": 24.5, "tag": "objective"},
                                {"type": "assault_bot", "x": 24.5, "y": 28.5, "count": 6}]), _team(1)]
    level = {"schema_version": 1, "name": name, "description": "d", "map": {"name": "open_field"}, "teams": teams,
             "rules": list(rules), "switches": {"fog_of_war": False, "production": production, "time_limit": 330},
             "conditions": []}
    (folder / "level.json").write_text(json.dumps(level))
    (folder / "brief.json").write_text(json.dumps({"query": name, "unsupported": list(unsupported), "clauses": [],
                                                   "is_game": True, "refusal": None}))
    (folder / "validation.json").write_text(json.dumps({"playable": playable, "status": "playable" if playable else "failed",
                                                        "reason": "r", "unsupported": list(unsupported)}))
    starts = [{"event": "spawn", "id": k, "source": "start", "t": 0.0, "team": t["id"], "type": u["type"],
               "x": u["x"], "y": u["y"]} for k, (t, u) in enumerate((t, u) for t in teams for u in t["units"])]
    events = starts + [e for w in waves for e in w] + list(extra_events)
    ref = sorted(events, key=lambda e: e["t"]) + _end(*ref_end)
    idle = starts + _end(*idle_end)
    for seed in (0, 1):
        (folder / "runs" / f"reference_seed{seed}.jsonl").write_text("\n".join(json.dumps(e) for e in ref))
    (folder / "runs" / "idle_seed0.jsonl").write_text("\n".join(json.dumps(e) for e in idle))
    return folder


PROTECT = {"id": "protect_objective_loss", "script": "rules/p.lua", "params": {"team": 0, "tag": "objective"}}
TIMED = Expected(directions=["w", "e"], direction_times=[60, 150], wave_sizes="increasing")


def test_an_aligned_scenario_passes(tmp_path):
    folder = scenario(tmp_path, rules=[PROTECT], waves=[_spawns(60, 1, WEST, 3), _spawns(150, 1, EAST, 5, first_id=200)])
    verdict = check_folder(folder, TIMED.model_copy(update={"objectives": 1, "objective_type": "metal_storage",
                                                            "time_limit": 300, "teams": 2}))
    assert verdict.aligned, verdict.failures
    assert not verdict.silent


def test_a_wave_from_an_unasked_side_is_caught(tmp_path):
    folder = scenario(tmp_path, waves=[_spawns(60, 1, WEST, 3), _spawns(150, 1, NORTH, 5, first_id=200)])
    verdict = check_folder(folder, TIMED)
    assert not verdict.aligned
    assert "unasked sides" in verdict.failures["directions"] and "n" in verdict.failures["directions"]


def test_sides_in_the_wrong_order_or_at_the_wrong_time_are_caught(tmp_path):
    swapped = scenario(tmp_path, name="swapped", waves=[_spawns(60, 1, EAST, 3), _spawns(150, 1, WEST, 5, first_id=200)])
    assert "order" in check_folder(swapped, TIMED).failures["directions"]
    late = scenario(tmp_path, name="late", waves=[_spawns(60, 1, WEST, 3), _spawns(200, 1, EAST, 5, first_id=200)])
    assert "e at 200s (asked 150s)" in check_folder(late, TIMED).failures["directions"]


def test_a_wrong_team_count_and_an_alliance_in_a_free_for_all_are_caught(tmp_path):
    army = [{"type": "assault_bot", "x": 10.5, "y": 10.5, "count": 3}]
    three = scenario(tmp_path, name="three", teams=[_team(i, army) for i in range(3)], ref_end=(180, [0], [1, 2]),
                     idle_end=(180, [1], [0, 2]))
    verdict = check_folder(three, Expected(teams=4, ffa=True))
    assert "3 sides" in verdict.failures["teams"] and "asked 4" in verdict.failures["teams"]
    allied = scenario(tmp_path, name="allied", teams=[_team(0, army), _team(1, army), _team(2, army, [3]), _team(3, army)],
                      ref_end=(180, [0], [1, 2, 3]), idle_end=(180, [1], [0, 2, 3]))
    assert "3 sides" in check_folder(allied, Expected(teams=4, ffa=True)).failures["teams"]
    assert check_folder(allied, Expected(teams=3)).aligned


def test_a_silent_substitution_is_flagged_and_a_reported_one_is_not(tmp_path):
    # asked to hold a zone for 2 minutes; built a plain defence and said nothing
    silent = scenario(tmp_path, name="silent", rules=[PROTECT], waves=[_spawns(60, 1, WEST, 3)])
    verdict = check_folder(silent, Expected(hold_time=120))
    assert not verdict.aligned and verdict.silent
    assert "no zone rule" in verdict.failures["hold"]
    told = scenario(tmp_path, name="told", rules=[PROTECT], waves=[_spawns(60, 1, WEST, 3)],
                    unsupported=["hold the zone for 2 minutes: no capture rule"])
    verdict = check_folder(told, Expected(hold_time=120))
    assert not verdict.aligned and not verdict.silent


def test_hold_time_is_read_from_the_zone_rule_and_the_win(tmp_path):
    zone = {"id": "capture_and_hold", "script": "rules/c.lua", "params": {"team": 0, "hold_seconds": 120}}
    captured = [{"event": "rule_log", "t": 30.0, "rule": "capture_and_hold", "name": "zone_captured", "fields": {}}]
    held = scenario(tmp_path, name="held", rules=[zone], extra_events=captured, ref_end=(150, [0], [1]))
    assert check_folder(held, Expected(hold_time=120)).aligned
    short = scenario(tmp_path, name="short", rules=[zone], extra_events=captured, ref_end=(90, [0], [1]))
    assert "holding 60s" in check_folder(short, Expected(hold_time=120)).failures["hold"]


def test_growth_and_probe_then_main_are_measured_on_wave_sizes(tmp_path):
    folder = scenario(tmp_path, waves=[_spawns(60, 1, NORTH, 3), _spawns(120, 1, NORTH, 5, first_id=200),
                                       _spawns(180, 1, NORTH, 9, first_id=300)])
    assert check_folder(folder, Expected(waves=3, wave_sizes="increasing", directions=["n"])).aligned
    doubling = check_folder(folder, Expected(growth_factor=2))
    assert "not each >= 2x" in doubling.failures["waves"]
    assert "main attack 5 is not >= 2x the probe 3" in check_folder(folder, Expected(probe_main=True)).failures["probe_main"]


def test_flanks_are_judged_as_the_player_faces_the_enemy(tmp_path):
    # the player stands in the south, facing the map centre (north): west is its left, east its right
    teams = [_team(0, [{"type": "assault_bot", "x": 24.5, "y": 40.5, "count": 4}]), _team(1)]
    folder = scenario(tmp_path, teams=teams, waves=[_spawns(45, 1, WEST, 3), _spawns(120, 1, EAST, 3, first_id=200)])
    assert check_folder(folder, Expected(directions=["left", "right"], direction_times=[45, 120])).aligned
    assert "order" in check_folder(folder, Expected(directions=["right", "left"])).failures["directions"]
    # a player in the middle of the map with no enemy base faces up the map (north), as it is drawn
    central = scenario(tmp_path, name="central", waves=[_spawns(45, 1, WEST, 3), _spawns(120, 1, NORTH, 3, first_id=200)])
    verdict = check_folder(central, Expected(directions=["left", "right"]))
    assert "unasked sides" in verdict.failures["directions"] and "ahead/behind" in verdict.failures["directions"]


def test_air_raids_on_a_building_class(tmp_path):
    teams = [_team(0, [{"type": "solar_collector", "x": 24.5, "y": 24.5, "count": 3},
                       {"type": "aa_vehicle", "x": 24.5, "y": 28.5, "count": 4}]), _team(1)]
    raids = [_spawns(t, 1, NORTH, 2, unit="bomber", first_id=100 + t) for t in (60, 180, 300)]
    rule = {"id": "air_raid", "script": "rules/a.lua", "params": {"team": 1, "target_type": "solar_collector"}}
    folder = scenario(tmp_path, teams=teams, rules=[rule], waves=raids)
    assert check_folder(folder, Expected(raid_domain="air", raid_target="solar_collector", raid_interval=120)).aligned
    wrong = check_folder(folder, Expected(raid_domain="ground", raid_target="metal_extractor", raid_interval=60))
    assert {"raids"} == set(wrong.failures)
    assert "asked ground" in wrong.failures["raids"] and "no metal_extractor" in wrong.failures["raids"]


def test_a_protected_unit_whose_death_does_not_lose_is_caught(tmp_path):
    teams = [_team(0, [{"type": "commander", "x": 24.5, "y": 24.5, "tag": "vip"}]), _team(1)]
    rule = {"id": "protect_objective_loss", "script": "rules/p.lua", "params": {"team": 0, "tag": "vip"}}
    died = [{"event": "death", "id": 0, "t": 100.0, "team": 0, "type": "commander", "x": 24.5, "y": 24.5, "killer_team": 1}]
    folder = scenario(tmp_path, teams=teams, rules=[rule], extra_events=died)
    assert "did not lose" in check_folder(folder, Expected(protect_unit="commander")).failures["protect"]
    unguarded = scenario(tmp_path, name="unguarded", teams=teams)
    assert "no loss path" in check_folder(unguarded, Expected(protect_unit="commander")).failures["protect"]


def test_a_production_race_with_a_deadline_and_a_timed_enemy_attack(tmp_path):
    teams = [_team(0, [{"type": "commander", "x": 24.5, "y": 40.5}, {"type": "bot_lab", "x": 20.5, "y": 40.5}]), _team(1)]
    built = [{"event": "spawn", "id": 50 + i, "source": "production", "t": 100.0 + 20 * i, "team": 0,
              "type": "assault_bot", "x": 20.5, "y": 38.5} for i in range(3)]
    goal = {"id": "production_goal", "script": "rules/g.lua", "params": {"team": 0, "units": {"assault_bot": 3},
                                                                        "deadline": 360}}
    attack = _spawns(240, 1, NORTH, 4)
    exp = Expected(produce={"assault_bot": 3}, deadline=360, enemy_attack_times=[240], attack_domains=["ground"])
    on_time = scenario(tmp_path, name="on_time", teams=teams, rules=[goal], waves=[attack], extra_events=built,
                       production=True, ref_end=(141, [0], [1]), idle_end=(360, [1], [0]))
    assert check_folder(on_time, exp).aligned, check_folder(on_time, exp).failures
    no_attack = scenario(tmp_path, name="no_attack", teams=teams, rules=[goal], extra_events=built, production=True,
                         ref_end=(141, [0], [1]), idle_end=(360, [1], [0]))
    assert "no enemy attack near 240s" in check_folder(no_attack, exp).failures["attack_times"]
    default_limit = scenario(tmp_path, name="default_limit", teams=teams, waves=[attack], extra_events=built,
                             production=True, ref_end=(141, [0], [1]), idle_end=(600, [1], [0]))
    assert "no loss at 360s" in check_folder(default_limit, exp).failures["deadline"]
    air = check_folder(on_time, exp.model_copy(update={"attack_domains": ["air"]}))
    assert "asked air" in air.failures["attack_times"]
    assert "produced 3, owned 3" in check_folder(on_time, Expected(produce={"assault_bot": 4})).failures["produce"]


def test_fortifications_a_rule_places_are_targets_not_waves(tmp_path):
    turrets = _spawns(0, 1, NORTH, 4, unit="light_turret")
    killed = [{"event": "death", "id": 100, "t": 80.0, "team": 1, "type": "light_turret", "x": 24.5, "y": 5.5,
               "killer_team": 0}]
    folder = scenario(tmp_path, waves=[turrets], extra_events=killed, ref_end=(120, [0], [1]))
    assert check_folder(folder, Expected(destroy_type="light_turret", waves=0)).aligned
    assert "no heavy_turret" in check_folder(folder, Expected(destroy_type="heavy_turret")).failures["destroy"]


def test_refusals_and_not_honoured_clauses(tmp_path):
    folder = tmp_path / "cake"
    folder.mkdir()
    (folder / "brief.json").write_text(json.dumps({"query": "bake a cake", "is_game": False, "refusal": "no game words",
                                                   "unsupported": [], "clauses": []}))
    (folder / "validation.json").write_text(json.dumps({"playable": False, "status": "refused", "reason": "no game words"}))
    assert check_folder(folder, Expected(refused=True)).aligned
    assert "expected a refusal" in check_folder(
        scenario(tmp_path, waves=[_spawns(60, 1, WEST, 3)]), Expected(refused=True)).failures["refused"]
    told = scenario(tmp_path, name="told", waves=[_spawns(60, 1, WEST, 3)], unsupported=["dragons: no such unit"])
    assert check_folder(told, Expected(directions=["w"], not_honoured_contains=["dragon"])).aligned
    assert "not reported" in check_folder(told, Expected(not_honoured_contains=["rain"])).failures["not_honoured"]


def test_the_checker_cli_says_why_for_a_folder_that_is_not_a_scenario(tmp_path, capsys):
    assert check_main([str(tmp_path), "--expect", "{}"]) == 2
    assert "not a scenario folder" in capsys.readouterr().err
    assert check_main([str(tmp_path), "--expect", '{"teams": "many"}']) == 2


def test_the_corpus_covers_every_family_in_varied_phrasings():
    entries = load_corpus()
    assert len(entries) >= 70
    assert {e.family for e in entries} == ITEM3_FAMILIES
    assert sum(e.expect.refused or bool(e.expect.not_honoured_contains) for e in entries) >= 10
    assert any(e.expect.teams == 4 and e.expect.ffa and "1v1v1v1" in e.request for e in entries)
    assert {d for e in entries for d in e.expect.directions} >= {"n", "ne", "e", "se", "s", "sw", "w", "nw", "left", "right"}
    texts = [e.request for e in entries]
    assert len(set(texts)) == len(texts)
    assert any(":" in t and any(c.isdigit() for c in t) for t in texts)        # 1:30
    assert any(t.isupper() or "EIGHT" in t for t in texts)                     # odd capitalisation
    with pytest.raises(ValidationError):
        Expected(directions=["w", "e"], direction_times=[60])


def test_measure_counts_aligned_and_silent_entries_of_a_batch(tmp_path):
    entries = {e.id: e for e in load_corpus()}
    chosen = [entries["dir_west_then_east"], entries["grow_ever_growing"], entries["bad_cake"]]
    batch = tmp_path / "batch"
    # west then east as asked; equal waves where growth was asked, reported nowhere; the cake never generated
    scenario(batch, name="a", rules=[PROTECT], waves=[_spawns(60, 1, WEST, 3), _spawns(150, 1, EAST, 3, first_id=200)])
    scenario(batch, name="b", rules=[PROTECT], waves=[_spawns(60, 1, NORTH, 3), _spawns(150, 1, NORTH, 3, first_id=200)])
    (batch / "batch.json").write_text(json.dumps({"queries": [{"query": chosen[0].request, "slug": "a"},
                                                              {"query": chosen[1].request, "slug": "b"}]}))
    summary = measure(chosen, batch)
    assert [r.aligned for r in summary.rows] == [True, False, False]
    assert (summary.aligned, summary.silent, summary.silent_playable) == (1, 2, 1)
    assert "no scenario folder" in summary.rows[2].failures["generated"]
    assert "aligned 1/3 = 33%" in summary.table()
