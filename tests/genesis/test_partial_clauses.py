"""A clause of the request is honoured, partly honoured (what was built, what was not), assumed or not
honoured: the typed brief, the schema a model is given, the clause check, the offline backend,
validation.json and the report all know the partial status, and a partial clause shows once, as partial."""
from __future__ import annotations

import json

import pytest

from genesis.agents.designer import AccountedBrief
from genesis.checks.clause_checks import clause_problems
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.pipeline.finalize import clause_records
from genesis.report import write_report
from genesis.validation_record import ClauseRecord
from tests.genesis.test_report import make_scenario

QUERY = "a free-for-all between twelve teams, ranked by units killed"


def _brief(query: str = QUERY):
    return write_brief(query, read(query), [])


def _partial(brief):
    (part,) = [c for c in brief.clauses if c.status == "partial"]
    return part


def test_the_offline_backend_marks_a_capped_clause_partial_with_what_was_built_and_what_was_not():
    brief = _brief()
    part = _partial(brief)
    assert "twelve teams" in part.text and "team_count" in part.requirement_ids
    assert "8 teams" in part.built and "at most 8" in part.why
    assert any(part.why in u for u in brief.unsupported) and clause_problems(brief) == []
    # a clause that is only partly built is never also marked honoured
    assert not [c for c in brief.clauses if c.status == "honoured" and c.why]


def test_the_clause_check_holds_a_partial_clause_to_its_contract():
    brief = _brief()
    part = _partial(brief)

    def problems(**update):
        clauses = [c.model_copy(update=update) if c is part else c for c in brief.clauses]
        return clause_problems(brief.model_copy(update={"clauses": clauses}))

    assert any("does not say in `built`" in p for p in problems(built=""))
    assert any("partial clause" in p and "lists no requirement" in p for p in problems(requirement_ids=[]))
    assert any("does not say why" in p for p in problems(why=""))
    silent = brief.model_copy(update={"unsupported": []})
    assert any("partial clause" in p and "missing from `unsupported`" in p for p in clause_problems(silent))


def test_the_schema_a_model_is_given_has_the_partial_status_and_what_was_built():
    clause = AccountedBrief.model_json_schema()["$defs"]["ClauseAccount"]
    assert "partial" in clause["properties"]["status"]["enum"]
    assert "partial" in clause["properties"]["built"]["description"]
    data = _brief().model_dump(mode="json")
    assert any(c["status"] == "partial" for c in AccountedBrief.model_validate(data).model_dump()["clauses"])


def test_validation_json_carries_each_clause_with_the_evidence_of_its_requirements():
    brief = _brief()
    evidence = [{"id": "team_count", "status": "verified"}, {"id": "ffa_no_allies", "status": "failed"}]
    records = [ClauseRecord.model_validate(r) for r in clause_records({"brief": brief, "status": "playable", "evidence": evidence})]
    assert [r.text for r in records] == [c.text for c in brief.clauses]
    (part,) = [r for r in records if r.status == "partial"]
    assert part.evidence == {"team_count": "verified", "ffa_no_allies": "failed"} and part.built and part.why


def test_the_report_shows_a_partial_clause_once_with_what_was_built_and_what_was_not(tmp_path):
    folder = make_scenario(tmp_path / "scenario")
    brief = _brief()
    (folder / "brief.json").write_text(json.dumps(brief.model_dump(mode="json")))
    validation = json.loads((folder / "validation.json").read_text())
    validation["clauses"] = clause_records({"brief": brief, "status": "playable", "evidence": [{"id": "team_count", "status": "verified"}]})
    (folder / "validation.json").write_text(json.dumps(validation))
    html = write_report(folder).read_text()
    part = _partial(brief)
    assert html.count('class="chip warn">partly honoured') == 1 and 'class="clause partial"' in html
    assert f"<b>built:</b> {part.built}" in html and "<b>not built:</b>" in html and "at most 8" in html
    assert "<code>team_count</code> <span class=\"muted small\">(verified)</span>" in html
    assert html.count('class="chip ok">honoured') == sum(c.status == "honoured" for c in brief.clauses)


@pytest.mark.parametrize("count", ["three", "4", "five", "twenty"])
@pytest.mark.parametrize("thing,asked", [("constructors", "alive"), ("engineers", "standing"),
                                         ("heavy tanks", "in one piece"), ("scouts", "intact")])
def test_a_clause_whose_count_or_unit_was_not_read_is_never_honoured(count, thing, asked):
    # the deadline in it is read, the things it asks to keep are not: the clause is at most partial and says
    # which words were not read
    query = f"Hold out against enemy waves from the east; keep all {count} of your {thing} {asked} until minute 6."
    brief = _brief(query)
    (clause,) = [c for c in brief.clauses if thing in c.text]
    assert clause.status in ("partial", "not_honoured")
    assert clause.status == "not_honoured" or count in clause.why or thing.split()[-1] in clause.why
    assert clause_problems(brief) == []


@pytest.mark.parametrize("query,phrase", [
    ("Survive 6 minutes; enemy bots attack from the east at 2:00 and 4:00.", "enemy bots attack"),
    ("A 2v2 team battle on crossroads, 10 minute limit.", "2v2"),
    ("Two versus two, last pair standing wins.", "Two versus two"),
])
def test_a_clause_whose_counts_and_units_were_read_stays_honoured(query, phrase):
    brief = _brief(query)
    (clause,) = [c for c in brief.clauses if phrase in c.text]
    assert clause.status == "honoured", clause


def test_an_honoured_clause_whose_requirement_failed_in_validation_is_on_record_as_partial():
    brief = _brief("Survive 6 minutes; waves from the west and the north.")
    honoured = [c for c in brief.clauses if c.status == "honoured"]
    target = next(c for c in honoured if "west" in c.text)
    failing = target.requirement_ids[-1]
    evidence = [{"id": rid, "status": "failed" if rid == failing else "verified"}
                for c in brief.clauses for rid in c.requirement_ids]
    records = {r["text"]: r for r in clause_records({"brief": brief, "status": "playable", "evidence": evidence})}
    record = ClauseRecord.model_validate(records[target.text])
    assert record.status == "partial" and failing in record.why and failing not in record.built
    # clauses whose requirements all held keep their status
    assert all(records[c.text]["status"] == "honoured" for c in honoured if failing not in c.requirement_ids)


@pytest.mark.parametrize("clause", ["the base has to be standing at five minutes",
                                    "if both pairs still have a commander at ten minutes it's a draw",
                                    "a flag is raised at seven and a half minutes"])
def test_a_time_in_a_clause_that_names_no_attack_is_not_claimed_as_an_attack_time(clause):
    brief = _brief(f"Fog of war on; {clause}.")
    (account,) = [c for c in brief.clauses if clause.split()[1] in c.text and "minutes" in c.text]
    assert account.status != "honoured" and "no attack" in account.why
    assert clause_problems(brief) == []


def test_times_listed_after_an_attack_in_the_same_sentence_stay_attack_times():
    brief = _brief("Survive 5 minutes: the left camp gets hit at 1:30, the right one sixty seconds after that.")
    (account,) = [c for c in brief.clauses if "right one" in c.text]
    assert "no attack" not in account.why


def test_a_run_that_delivered_no_level_that_plays_claims_no_clause_honoured():
    brief = _brief("Survive 6 minutes; waves from the west and the north.")
    records = clause_records({"brief": brief, "status": "failed", "evidence": []})
    assert records and all(r["status"] == "not_honoured" for r in records)
    planned = [r for r, c in zip(records, brief.clauses) if c.status == "honoured"]
    assert planned and all("delivered no level that plays" in r["why"] for r in planned)
    # a level that plays keeps the brief's statuses
    kept = clause_records({"brief": brief, "status": "playable", "evidence": []})
    assert [r["status"] for r in kept] == [c.status for c in brief.clauses]


@pytest.mark.parametrize("count,n", [("three", 3), ("4", 4), ("five", 5)])
@pytest.mark.parametrize("thing,type_id", [("radar towers", "radar_tower"), ("metal extractors", "metal_extractor")])
def test_keeping_all_n_of_your_buildings_builds_n_of_them_as_the_objectives(count, n, thing, type_id):
    from genesis.offline.gdd_writer import design

    brief = _brief(f"Hold out against enemy waves from the east; keep all {count} of your {thing} standing until minute 6.")
    (clause,) = [c for c in brief.clauses if thing in c.text]
    player = next(t for t in design(brief).teams if t.id == 0)
    assert clause.status == "honoured"
    assert sum(u.count for u in player.units if u.type == type_id and u.tag == "objective") == n


def test_the_words_between_two_ordered_sides_are_not_read_by_the_order():
    """The order of two named sides is read from the sides; what lies between them (a time said in words,
    a size relative to the first attack) is read only by a phrase of its own, or the clause is partial."""
    brief = _brief("The southern ridge takes a hit when the clock is barely past its opening stretch, and later a "
                   "force twice that size follows from the north; keep both outposts standing for 5 minutes.")
    between = [c for c in brief.clauses if "ridge" in c.text or "twice" in c.text]
    assert len(between) == 2 and all(c.status == "partial" for c in between)
    assert "opening" in between[0].why
    assert "twice" in between[1].why


def test_the_words_between_a_siege_target_and_its_verb_are_not_read_by_the_siege():
    """"the enemy X ...; take him out": the target and the verb make the siege; what the request says of the
    target between them (its guards, its defences) is honoured only when a phrase of its own reads it."""
    brief = _brief("The enemy commander is holed up past the ford, and every approach is covered by two gun "
                   "nests; hunt him down and take him out within 7 minutes.")
    (guards,) = [c for c in brief.clauses if "gun nests" in c.text]
    assert guards.status != "honoured"


@pytest.mark.parametrize("keep", ["has to be breathing at the five-minute mark", "must be on its feet at 5:00",
                                  "needs to be still alive at the 5:00 mark"])
def test_a_time_a_unit_must_still_live_at_is_the_end_of_the_game_not_an_attack(keep):
    brief = _brief(f"Enemy columns come from the south at 1:00 and 2:30. Your commander {keep}.")
    assert brief.concepts.time_limit == 300 and brief.concepts.wave_times == [60, 150]
    (clause,) = [c for c in brief.clauses if "commander" in c.text]
    assert clause.status == "honoured" and "objective_loss" in clause.requirement_ids


@pytest.mark.parametrize("sight", ["All you can see is what your own troops can see.",
                                   "Each side sees only around its own units.",
                                   "Vision is restricted to what your units see."])
def test_fog_said_as_what_the_player_sees_turns_fog_on(sight):
    brief = _brief(f"{sight} Waves come from the east at 1:00 and 2:30; survive 4 minutes.")
    assert brief.concepts.fog is True
    (clause,) = [c for c in brief.clauses if c.text.strip() == sight]
    assert clause.status == "honoured"


@pytest.mark.parametrize("window", ["sometime between 1:30 and 3:00", "after 90 seconds but before 3:00",
                                    "at some point between the one- and three-minute marks"])
def test_one_attack_in_a_window_is_one_attack_drawn_in_that_window(window):
    from genesis.offline.gdd_writer import design

    brief = _brief(f"A raid of light tanks comes {window} from a side picked each game; keep the factory up for 5 minutes.")
    c = brief.concepts
    assert c.waves == 1 and c.attack_window and c.attack_window[1] <= 180
    attacks = [comp for comp in design(brief).rule_components if comp.kind == "spawn"]
    assert attacks and all(comp.params.get("raids", 1) == 1 and len(comp.params.get("times", [0])) == 1
                           for comp in attacks)


def test_how_fast_a_list_of_units_gets_made_is_a_production_goal_and_its_buildings_are_partial():
    brief = _brief("How quickly could you roll out an aa turret, three rocket bots and a pair of heavy tanks? The "
                   "stopwatch stops at the seven-minute mark no matter what; no enemies.")
    c = brief.concepts
    assert c.archetype == "production" and c.target_composition == {"rocket_bot": 3, "heavy_tank": 2}
    assert c.time_limit == 420 and c.unopposed
    (turret,) = [cl for cl in brief.clauses if "aa turret" in cl.text]
    assert turret.status == "partial" and "not counted" in turret.why
    assert all(cl.status == "honoured" for cl in brief.clauses if "stopwatch" in cl.text or "enemies" in cl.text)


def test_a_refusal_quotes_the_unread_stretch_whole_across_a_clock():
    from genesis.offline.concepts import read

    reading = read("Whistle a tune from the two-minute mark onward near the northern storage, which must still be "
                   "standing.")
    assert not reading.is_game
    assert '"Whistle a tune from the two-minute mark onward near the northern storage"' in reading.refusal
    assert "escort" in reading.refusal and "bank" in reading.refusal    # every game it builds is suggested


@pytest.mark.parametrize("side, word", [("w", "west"), ("se", "south-east"), ("n", "north")])
def test_a_siege_base_on_a_named_side_has_every_candidate_site_on_that_side(side, word):
    from genesis.offline.gdd_writer import design
    from genesis.offline import geometry as G

    brief = _brief(f"Their stronghold sits in the {word} of the map; knock out its factory within 7 minutes.")
    (clause,) = [c for c in brief.clauses if word in c.text]
    assert clause.status == "honoured" and "base_side" in clause.requirement_ids
    gdd = design(brief)
    m = G.load(gdd.map.model_dump())
    (fort,) = [comp for comp in gdd.rule_components if comp.id == "static_fortification"]
    centre = (m.width / 2, m.height / 2)
    vx, vy = G.COMPASS_VECTORS[side]
    assert all((x - centre[0]) * vx + (y - centre[1]) * vy > 0 for x, y in fort.params["sites"])
    (req,) = [r for r in gdd.requirements if r.id == "base_side"]
    assert req.expect and req.expect[0].state.tag == "target"


@pytest.mark.parametrize("query, side", [
    ("Hold the southern bridge on the river map for 90 seconds.", "s"),
    ("Keep the western crossing for a minute and a half with no enemy on it; you have 6 minutes.", "w"),
    ("Sit on the northern junction for 100 seconds and take it before 5:00.", "n")])
def test_a_zone_on_a_named_side_stands_there_and_is_evidenced(query, side):
    from genesis.offline.gdd_writer import design
    from genesis.offline import geometry as G

    brief = _brief(query)
    assert brief.concepts.archetype == "capture"
    said = [c for c in brief.clauses if "zone_side" in c.requirement_ids]
    assert said and all(c.status == "honoured" for c in said)
    gdd = design(brief)
    m = G.load(gdd.map.model_dump())
    (hold,) = [comp for comp in gdd.rule_components if comp.id == "capture_and_hold"]
    x, y = hold.params["zone"]
    vx, vy = G.COMPASS_VECTORS[side]
    assert (x - m.width / 2) * vx + (y - m.height / 2) * vy > 0
    (req,) = [r for r in gdd.requirements if r.id == "zone_side"]
    assert req.expect


def test_a_win_or_loss_read_only_through_a_word_the_scenario_never_checks_is_not_honoured():
    """A 2v2 ends on the last alliance with units: a clause ending it on its buildings names them, but
    nothing in the level looks at them."""
    brief = _brief("2v2 team battle: each side starts with a factory and 6 light tanks; the first alliance to lose "
                   "both its factories is out, 10 minute limit.")
    (clause,) = [c for c in brief.clauses if "is out" in c.text]
    assert clause.status != "honoured"


@pytest.mark.parametrize("query, squad, foes, cap", [
    ("Two light tanks and three rocket bots run into a band of nine light bots; leave none of them standing within "
     "two minutes, and don't lose more than one of your five.", {"light_tank": 2, "rocket_bot": 3}, {"light_bot": 9}, 1),
    ("Four rocket bots face down a crowd of twelve light bots; destroy them all within 2:30 while losing no more than "
     "1 rocket bot.", {"rocket_bot": 4}, {"light_bot": 12}, 1)])
def test_a_skirmish_of_a_mixed_squad_with_a_loss_cap_is_read_whole(query, squad, foes, cap):
    brief = _brief(query)
    c = brief.concepts
    assert c.archetype == "micro" and c.squad == squad and c.enemy_force == foes and c.max_losses == cap
    assert all(cl.status == "honoured" for cl in brief.clauses), [(cl.text, cl.why) for cl in brief.clauses]


@pytest.mark.parametrize("query", [
    "Five armies, each on its own against the rest; no one can build, and the army still holding units when all "
    "the others are wiped out wins it.",
    "A four-way free-for-all where nobody gets to build; the faction with troops left once every other side is "
    "gone takes the match."])
def test_a_free_for_all_won_by_the_last_side_with_units_and_nobody_building(query):
    brief = _brief(query)
    c = brief.concepts
    assert c.archetype == "ffa" and c.production is False and c.elimination == "units"
    assert all(cl.status == "honoured" for cl in brief.clauses), [(cl.text, cl.why) for cl in brief.clauses]


def test_an_attack_from_the_side_opposite_the_first_is_partial():
    brief = _brief("Survive 6 minutes: a raid at 1:30 from a side picked each game, and a second at 3:30 from the "
                   "opposite side to the first one.")
    said = [c for c in brief.clauses if "opposite" in c.text]
    assert said and all(c.status == "partial" and "opposite" in c.why for c in said)


def test_keeping_the_objective_in_one_piece_is_its_loss_condition():
    brief = _brief("Waves come from the north at 1:00 and 2:30. Keep your radar tower in one piece until the clock "
                   "shows five minutes and you've won.")
    (clause,) = [c for c in brief.clauses if "one piece" in c.text]
    assert clause.status == "honoured" and "objective_loss" in clause.requirement_ids


def test_a_siege_said_in_other_words_with_its_guards_and_a_start_named_after_its_units():
    from genesis.offline.gdd_writer import design

    brief = _brief("Pull down the bot lab they've dug in on the eastern hills before six minutes run out; four "
                   "heavy turrets and some light bots stand guard, and the eight assault bots you begin with are all "
                   "you will ever have.")
    c = brief.concepts
    assert c.archetype == "siege" and c.objective_type == "bot_lab" and c.directions == ["e"]
    assert c.player_start == {"assault_bot": 8} and c.guard_turrets == {"heavy_turret": 4} and c.production is False
    gdd = design(brief)
    assert gdd.variation.fixed_by is None or gdd.variation.fixed_by in brief.query


def test_a_flag_flown_over_a_place_for_a_time_end_to_end_is_a_capture_with_a_deadline():
    brief = _brief("Plant your flag on the hilltop and keep it there for ninety seconds end to end; once the "
                   "six-minute mark passes you've failed.")
    c = brief.concepts
    assert c.archetype == "capture" and c.hold_time == 90 and c.deadline == 360
    assert all(cl.status == "honoured" for cl in brief.clauses), [(cl.text, cl.why) for cl in brief.clauses]


def test_a_clause_the_design_builds_less_of_takes_the_status_its_gdd_gives_and_shows_as_not_honoured():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import requirements_covered
    from genesis.models import ClauseChange
    from genesis.offline.gdd_writer import design
    from genesis.pipeline.finalize import _unshown

    query = "defend two fronts with staggered waves"
    brief = write_brief(query, read(query))
    gdd = design(brief)
    first = brief.clauses[0]
    assert first.status == "honoured"
    gdd.clause_changes = [ClauseChange(clause=first.text, status="partial", built="one front",
                                       why="the second front is not built: the map has one approach")]
    assert requirements_covered(CheckContext(brief=brief, gdd=gdd))[0]
    state = {"brief": brief, "gdd": gdd, "status": "playable", "evidence": []}
    records = clause_records(state)
    assert (records[0]["status"], records[0]["built"]) == ("partial", "one front")
    assert any("the second front is not built" in line for line in _unshown(state, records))
    # a change must name a clause of the brief, verbatim
    gdd.clause_changes[0].clause = "defend three fronts"
    ok, why = requirements_covered(CheckContext(brief=brief, gdd=gdd))
    assert not ok and "clause_changes name no clause of the brief" in why


def test_a_clause_the_design_builds_in_full_is_honoured_only_when_the_requirements_it_names_were_verified():
    from genesis.checks.context import CheckContext
    from genesis.checks.gdd_checks import requirements_covered
    from genesis.models import ClauseChange
    from genesis.offline.gdd_writer import design
    from genesis.pipeline.finalize import _still_unsupported, _unshown

    query = "Hold out against five waves from the west up on the ridge; survive 5 minutes"
    brief = write_brief(query, read(query))
    gdd = design(brief)
    first = brief.clauses[0]
    assert first.status == "partial" and brief.unsupported
    rid = next(r.id for r in gdd.requirements if r.testable and r.expect)
    raise_it = ClauseChange(clause=first.text, status="honoured", why="the base stands on a ridge", requirement_ids=[])
    gdd.clause_changes = [raise_it]
    ok, why = requirements_covered(CheckContext(brief=brief, gdd=gdd))
    assert not ok and "without testable requirements" in why
    raise_it.requirement_ids = [rid]
    assert requirements_covered(CheckContext(brief=brief, gdd=gdd))[0]
    for shown, status in (("verified", "honoured"), ("failed", "partial")):
        state = {"brief": brief, "gdd": gdd, "status": "playable", "evidence": [{"id": rid, "status": shown}]}
        records = clause_records(state)
        assert records[0]["status"] == status
    state = {"brief": brief, "gdd": gdd, "status": "playable", "evidence": [{"id": rid, "status": "verified"}]}
    records = clause_records(state)
    assert records[0]["requirement_ids"] == [rid]
    assert not any("ridge" in line for line in _still_unsupported(state, records) + _unshown(state, records))


def test_brief_json_ends_with_the_clause_statuses_the_run_delivered(tmp_path):
    from genesis.models import Brief
    from genesis.pipeline.finalize import write_final_brief

    query = "defend two fronts with staggered waves"
    brief = write_brief(query, read(query))
    records = [{"text": c.text, "status": c.status, "built": c.built, "why": c.why} for c in brief.clauses]
    records[0].update(status="partial", built="one front", why="the level shipped has 1 front")
    write_final_brief(tmp_path, brief, records)
    written = Brief.model_validate_json((tmp_path / "brief.json").read_text())
    assert [c.status for c in written.clauses] == [r["status"] for r in records]
    assert written.clauses[0].why == "the level shipped has 1 front" and written.query == query


def test_a_clause_only_untestable_requirements_check_is_on_record_as_partial():
    query = "defend two fronts with staggered waves"
    brief = write_brief(query, read(query))
    ids = brief.clauses[0].requirement_ids
    evidence = [{"id": rid, "status": "untestable"} for rid in ids]
    first = clause_records({"brief": brief, "status": "playable", "evidence": evidence})[0]
    assert first["status"] == "partial" and "marked untestable" in first["why"]
    evidence[0]["status"] = "verified"
    assert clause_records({"brief": brief, "status": "playable", "evidence": evidence})[0]["status"] == "honoured"


def test_a_switch_or_map_clause_no_run_can_show_is_honoured_when_the_shipped_level_shows_it():
    from genesis.offline.gdd_writer import design

    query = "Hold out against 3 waves from the east on a 40x40 map with fog of war on"
    brief = write_brief(query, read(query))
    level = {"map": {"generate": {"width": 40, "height": 40}}, "switches": {"fog_of_war": True}, "teams": [],
             "rules": []}
    said = {c.text.strip(" ,;."): c for c in brief.clauses}
    fog = next(t for t in said if "fog" in t)
    ids = said[fog].requirement_ids
    state = {"brief": brief, "gdd": design(brief), "status": "playable", "level": level,
             "evidence": [{"id": rid, "status": "untestable"} for rid in ids]}
    record = next(r for r in clause_records(state) if r["text"].strip(" ,;.") == fog)
    assert record["status"] == "honoured" and "shown by the shipped level" in record["why"]
    level["switches"]["fog_of_war"] = False    # the level does not match: partial
    record = next(r for r in clause_records(state) if r["text"].strip(" ,;.") == fog)
    assert record["status"] == "partial"
