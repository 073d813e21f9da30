"""Reader and designer behaviour for production races under timed attacks, growing waves, probe then
main attacks and typo'd requests (design level: no pipeline run)."""
from __future__ import annotations

import pytest

from genesis.offline import wave_growth
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.offline.spelling import correct, repair
from genesis.offline.concepts import normalise


def _brief(query: str):
    return write_brief(query, read(query))


def _comp(gdd, cid):
    return next(c for c in gdd.rule_components if c.id == cid)


# ---- production races under timed enemy attacks -------------------------------------------------------
@pytest.mark.parametrize("query, times", [
    ("Build 3 assault bots; the enemy attacks at minute 4 whether you are ready or not", [240]),
    ("produce four rocket bots before the enemy's attack at minute five", [300]),
    ("train six light tanks, and expect enemy raids at 2:00 and 5:00", [120, 300]),
])
def test_a_race_under_timed_attacks_is_won_only_once_the_last_attack_is_beaten(query, times):
    brief = _brief(query)
    gdd = design(brief)
    goal = _comp(gdd, "production_goal").params
    attack = _comp(gdd, "enemy_attack")
    # the win waits until the last attack has come, however late its seeded jitter makes it
    late = attack.params.get("s1_jitter") or 0
    assert goal["win_from"] == max(times) + late and goal["beat_team"] == 1
    assert max(attack.params["s1_at"]) + late <= goal["win_from"]
    # the attack's units carry the tag the goal waits for
    assert attack.params["s1_a1_tag"] == goal["beat_tag"]
    # the attack is evidenced where it now happens: in the reference run
    req = next(r for r in gdd.requirements if r.id == "enemy_attack")
    assert req.on == "reference" and req.expect
    won = next(r for r in gdd.requirements if r.id == "production_win")
    assert any((e.model_dump().get("where") or {}).get("name") == "threat_cleared" for e in won.expect)


def test_raids_at_stated_times_are_the_timed_attacks_not_periodic_raids():
    gdd = design(_brief("tech up to 2 heavy tanks while enemy raids hit you at 3:00 and 6:00"))
    ids = [c.id for c in gdd.rule_components]
    assert "periodic_raids" not in ids and "enemy_attack" in ids
    assert "raids" in _comp(gdd, "enemy_attack").requirement_ids
    assert _comp(gdd, "enemy_attack").params["s1_at"] == [179.5, 359.5]


def test_a_race_under_attack_gets_a_guard_time_and_sight_and_a_plain_race_does_not():
    attacked = _brief("Race to produce five light tanks. An enemy strike lands at 150 seconds.")
    assert attacked.concepts.time_limit == 900 and attacked.concepts.fog is False
    guard = [u for u in design(attacked).teams[0].units if u.type == "assault_bot"]
    assert guard and guard[0].count >= 2
    # the guard never counts towards the goal
    race = design(_brief("Build 3 assault bots; the enemy attacks at minute 4 whether you are ready or not"))
    assert {u.type for u in race.teams[0].units} == {"commander", "constructor_bot", "light_tank"}
    plain = _brief("Race to produce five light tanks")
    assert plain.concepts.time_limit == 600 and plain.concepts.fog is True
    assert not [u for u in design(plain).teams[0].units if u.type == "assault_bot"]
    assert "win_from" not in _comp(design(plain), "production_goal").params


# ---- growing waves ------------------------------------------------------------------------------------
def test_wave_sizes_mirror_the_library_rule():
    assert wave_growth.sizes(2, 1, 3.0, 3) == [2, 6, 18]
    assert wave_growth.sizes(3, 2, 1.0, 5) == [3, 5, 7, 9, 11]
    assert wave_growth.sizes(2, 1, 1.5, 4) == [2, 3, 5, 8]      # at least +growth each wave


@pytest.mark.parametrize("query", ["three waves; each one three times as big as the last",
                                   "Every wave bigger than the previous one, 5 waves total",
                                   "survive 4 waves that triple each time from the east"])
def test_the_defence_is_sized_from_the_waves_it_must_beat(query):
    gdd = design(_brief(query))
    p = _comp(gdd, "escalating_waves").params
    waves = wave_growth.sizes(p["base_size"], p["growth"], p.get("factor", 1.0), p["count"])
    army = {u.type: u.count for u in gdd.teams[0].units if u.type in ("assault_bot", "light_bot")}
    needed = wave_growth.MARGIN * sum(wave_growth._power({p["unit_type"]: n}) for n in waves)
    assert wave_growth._power(army) >= needed
    # and objectives stand close to home, where the defence reaches them before a big wave
    home = gdd.strategy_params["home"]
    for u in gdd.teams[0].units:
        if u.tag == "objective":
            assert ((u.x - home[0]) ** 2 + (u.y - home[1]) ** 2) ** 0.5 <= 13


def test_a_small_growth_keeps_the_stock_defence():
    gdd = design(_brief("defend your storage against ever-growing enemy waves"))
    army = {u.type: u.count for u in gdd.teams[0].units if u.type in ("assault_bot", "light_bot")}
    assert army == {"assault_bot": 6, "light_bot": 6}


def test_counted_waves_all_come_before_the_game_ends():
    brief = _brief("8 waves, each bigger than the previous one")
    p = _comp(design(brief), "escalating_waves").params
    assert p["count"] == 8 and len(p["times"]) == 8 and max(p["times"]) < brief.concepts.time_limit


def test_a_growth_no_fair_defence_can_meet_is_cut_and_reported():
    brief = _brief("six waves, each ten times as big as the one before")
    assert brief.concepts.waves == 2
    assert any("x10" in u and "2 waves are played" in u for u in brief.unsupported)
    assert any(c.status == "partial" and "six waves" in c.text and "2 waves are played" in c.why for c in brief.clauses)
    fair = _brief("six waves, each twice as big as the one before")
    assert fair.concepts.waves == 6 and not fair.unsupported


# ---- probe then main ----------------------------------------------------------------------------------
@pytest.mark.parametrize("query, factor", [
    ("scouts first, then the real attack, twice as large", 2),
    ("a recon group pokes at your lines, and then the enemy comes in force, three times as many", 3),
    ("a feint, then the true offensive", None),
    ("their vanguard tests the walls before the full army arrives", None),
    ("a small raiding party first, and later the main body of the army", None),
])
def test_probe_then_main_in_other_words(query, factor):
    c = _brief(query).concepts
    assert c.probe_then_main and not c.escalating and c.main_factor == factor


def test_the_player_scouting_is_not_a_probe():
    c = _brief("scout carefully: the attack comes from the side you never scouted").concepts
    assert c.scouting and not c.probe_then_main


def test_a_probe_and_main_attack_from_two_named_sides_come_one_from_each():
    gdd = design(_brief("a feint from the west, then the true offensive from the north, 3 times as big"))
    steps = _comp(gdd, "probe_main").recipe.steps
    assert [s.then[0].at for s in steps] == [["west"], ["north"]]
    probe, main = (s.then[0].units["light_bot"] for s in steps)
    assert main >= 3 * probe


# ---- typos --------------------------------------------------------------------------------------------
def test_common_typos_are_repaired_towards_known_words():
    assert [repair(w) for w in ("betwen", "armys", "free-for-al", "agaisnt", "defnd")] == \
        ["between", "armies", "free-for-all", "against", "defend"]
    # real words one slip from a known word are left alone
    assert [repair(w) for w in ("layers", "might", "tasks", "rain")] == [None] * 4
    text, where = correct(*normalise("free-for-al betwen three armys"))
    assert text == "free-for-all between three armies" and len(where) == len(text) and where[-1] == 29


def test_a_typod_free_for_all_keeps_its_team_count():
    brief = _brief("free-for-al betwen three armys, ranked by damage dealt after 3 minutes")
    assert brief.concepts.archetype == "ffa" and brief.concepts.teams == 3 and not brief.unsupported


# ---- free-for-all ranked by damage dealt ----------------------------------------------------------------
def test_a_free_for_all_is_joined_once_the_hunting_rival_is_beaten_off_whatever_the_metric():
    """One seeded rival hunts the player from the start: the reference beats it off at home and joins
    the others' fights two thirds of the way in, ranked by damage dealt, kills or efficiency alike."""
    few = design(_brief("free-for-all between four armies, ranked by damage dealt after 3 minutes"))
    assert few.strategy_params["engage_at"] == 120
    many = design(_brief("Six teams, each on its own, battle for 4 minutes and are ranked by damage dealt"))
    assert many.strategy_params["engage_at"] == 160
    kills = design(_brief("four armies free-for-all ranked by kills after 3 minutes"))
    assert kills.strategy_params["engage_at"] == 120


@pytest.mark.parametrize("query, at", [("Produce 3 light tanks; an enemy attack comes after 4 minutes", 240),
                                       ("build 5 assault bots, the enemy attacks in 3 minutes", 180)])
def test_when_an_attack_comes_is_its_time_not_the_game_length(query, at):
    brief = _brief(query)
    assert brief.concepts.wave_times == [at] and brief.concepts.time_limit == 900
    assert "enemy_attack" in {r.id for r in brief.requirements}


@pytest.mark.parametrize("query, limit", [("build 6 assault bots in 4 minutes", 240),
                                          ("produce 3 heavy assault bots in 5 minutes", 300)])
def test_a_unit_named_for_an_attack_is_no_attack(query, limit):
    brief = _brief(query)
    assert brief.concepts.wave_times == [] and brief.concepts.time_limit == limit
    assert "enemy_attack" not in {r.id for r in brief.requirements}


def test_the_game_length_stays_where_a_duration_is_named_beside_an_attack_time():
    assert _brief("survive for 5 minutes while the enemy attacks in 2 minutes").concepts.time_limit == 300
    assert _brief("hold out for 3 minutes").concepts.time_limit == 180


@pytest.mark.parametrize("query, factor", [("every wave is 3x the size of the previous one, four waves", 3.0),
                                           ("waves grow by 50% each time", 1.5),
                                           ("wave after wave, each one bigger", None)])
def test_growth_in_other_words(query, factor):
    brief = _brief(query)
    assert brief.concepts.escalating and brief.concepts.growth_factor == factor and not brief.unsupported


def test_a_race_nothing_attacks_draws_its_start_corner_per_seed():
    query = "produce twenty light bots within 240 seconds"
    gdd = design(write_brief(query, read(query)))
    layout = next(c for c in gdd.rule_components if c.library_rule == "seeded_layout")
    starts = {tuple(next(u for u in lay["units"] if u["type"] == "commander").values()) for lay in layout.params["layouts"]}
    assert len(layout.params["layouts"]) >= 2 and len(starts) == len(layout.params["layouts"])
    assert not gdd.teams[0].units and "home" not in gdd.strategy_params
    assert gdd.variation.varies and gdd.variation.varies[0].how == "layout: random"
    assert "start corner changes" in gdd.agent_description


@pytest.mark.parametrize("query, first, interval, limit", [
    ("Defend for six minutes against four waves of light bots, the first landing at 1:00 and each one two minutes "
     "after the previous.", [60.0], 120.0, 360.0),
    ("Three raids, eighty seconds apart, beginning at 0:40 from the west; last until 5:00.", [40.0], 80.0, 300.0),
])
def test_an_interval_said_between_attacks(query, first, interval, limit):
    c = read(query).concepts
    assert (c.wave_times, c.wave_interval, c.time_limit) == (first, interval, limit)


@pytest.mark.parametrize("query, times, limit", [
    ("Attacks from the north at 1:00 and 2:30; the match ends in victory at 4:00.", [60.0, 150.0], 240.0),
    ("Waves from the south at 0:50 and 2:10, and victory comes at 3:20 if your lab stands.", [50.0, 130.0], 200.0),
])
def test_the_moment_a_win_is_declared_is_the_end_not_a_wave(query, times, limit):
    c = read(query).concepts
    assert (c.wave_times, c.time_limit) == (times, limit)


def test_a_main_attack_a_number_of_times_the_probes_size():
    c = read("A feint hits the south at 1:00; then the main assault comes from the north at 3:00, four times its "
             "size. Hold until 5:00.").concepts
    assert (c.probe_then_main, c.main_factor) == (True, 4.0)
