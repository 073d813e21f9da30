"""Waves counted one by one ("waves of 4, 6 and then 9") are read, built at those sizes and evidenced wave by
wave; a workspace whose library rule predates a param the design needs gets the rule as this version ships it."""
import yaml

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.developer_brain import write_rule
from genesis.offline.gdd_writer import design
from genesis.workspace import seed_kb
from tests.genesis.offline_design_helpers import evidence


def _brief(query):
    return write_brief(query, read(query))


def test_counted_waves_are_read_in_words_and_digits():
    c = read("Hold the depot for six minutes: enemy waves of five, seven and then ten arrive at 1:00, 2:30 and "
             "4:00 from the south.").concepts
    assert c.wave_sizes == [5, 7, 10] and c.waves == 3 and c.escalating
    c = read("defend the base against waves of 4, 4 and 4 tanks from the east every minute").concepts
    assert c.wave_sizes == [4, 4, 4] and not c.escalating


def test_one_counted_wave_size_is_no_list():
    assert read("defend the base against waves of 4 light bots at 1:00, 2:00 and 3:00").concepts.wave_sizes == []


def test_every_counted_clause_is_honoured_by_the_sizes_requirement():
    brief = _brief("Hold the depot for six minutes: enemy waves of five, seven and then ten arrive at 1:00, 2:30 "
                   "and 4:00 from the south.")
    assert "wave_sizes" in {r.id for r in brief.requirements}
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]


def test_counted_waves_are_built_at_their_sizes_and_a_wrong_size_fails(tmp_path):
    gdd = design(_brief("Hold the depot for six minutes: waves of 3, 5 and then 8 light bots arrive at 1:00, 2:00 "
                        "and 3:00 from the south."))
    (waves,) = [rc for rc in gdd.rule_components if rc.id == "escalating_waves"]
    assert waves.params["sizes"] == [3, 5, 8]
    [*results] = evidence(gdd, tmp_path, ["wave_sizes"])["wave_sizes"]
    assert results and all(r.passed for r in results), [r.detail for r in results]
    (req,) = [r for r in gdd.requirements if r.id == "wave_sizes"]
    assert {e.where["fields.count"] for e in req.expect} == {3, 5, 8}


def test_waves_too_large_for_a_fair_defence_are_reported_not_built():
    brief = _brief("survive waves of 20, 60 and then 120 light bots from the north at 1:00, 3:00 and 5:00")
    assert brief.concepts.wave_sizes == []
    assert any(c.status == "partial" and "fair match" in c.why for c in brief.clauses)


def test_an_older_library_rule_without_a_needed_param_gives_way_to_the_shipped_one():
    gdd = design(_brief("defend the outpost against waves of 3, 5 and then 8 light bots from the west at 1:00, "
                        "2:00 and 3:00"))
    (comp,) = [rc for rc in gdd.rule_components if rc.id == "escalating_waves"]
    meta = yaml.safe_load((seed_kb() / "rules" / "escalating_waves" / "meta.yaml").read_text())
    older = {"id": "escalating_waves", "meta": {**meta, "params": {k: v for k, v in meta["params"].items()
                                                                   if k != "sizes"}}}
    draft = write_rule(comp, older)
    assert draft.reuse is None and draft.source and "sizes" in draft.meta.params and draft.tests
    assert draft.params["sizes"] == [3, 5, 8]


def test_sides_counted_out_over_the_waves_are_each_waves_side():
    query = "three waves at 1:00, 2:00 and 3:00: the first two from the west, the last one from the south"
    brief = _brief(query)
    assert brief.concepts.directions == ["w", "w", "s"] and brief.concepts.fronts == 2
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]
    (order,) = [r for r in design(brief).requirements if r.id == "front_order"]
    assert "west, west, south" in order.text


def test_a_side_count_that_misses_the_waves_is_no_per_wave_list():
    c = read("four waves at 1:00, 2:00, 3:00 and 4:00: the first two from the west, the last from the south").concepts
    assert c.directions == ["w", "s"]


def test_counted_waves_at_an_interval_from_sides_in_order_are_evidenced_on_a_run(tmp_path):
    brief = _brief("four waves of 2, 4, 6 and 8 light bots from the north then the east, a minute apart, the first "
                   "at 0:40; if the storage falls you lose")
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]
    gdd = design(brief)
    results = evidence(gdd, tmp_path, ["interval", "front_order", "wave_sizes"])
    assert all(results[rid] and all(r.passed for r in results[rid]) for rid in results), \
        {rid: [r.detail for r in rs] for rid, rs in results.items()}


def test_one_size_for_every_wave_said_apart_from_the_waves():
    for query, waves in (("Enemy waves attack from the west, 7 units each, one every 50 seconds, 5 waves in all; keep "
                          "the storage alive.", 5),
                         ("Four 9-unit waves come from the north, 80 seconds apart; keep the lab standing.", 4),
                         ("Defend the outpost from the east: three attacks, each wave 6 strong, a minute apart.", 3)):
        c = read(query).concepts
        size = c.wave_sizes[0] if c.wave_sizes else None
        assert c.waves == waves and c.wave_sizes == [size] * waves and size in (7, 9, 6) and not c.escalating, query


def test_a_first_size_and_what_each_wave_adds_make_the_sizes():
    c = read("Six waves from the south, the first at 1:00, beginning with 3 units and each wave 2 more than the "
             "last; survive them all.").concepts
    assert c.wave_sizes == [3, 5, 7, 9, 11, 13] and c.escalating
    brief = _brief("Four waves of light bots from the west starting at 5 units, +3 each wave, a minute apart.")
    assert brief.concepts.wave_sizes == [5, 8, 11, 14]
    assert all(c.status == "honoured" for c in brief.clauses), [(c.text, c.why) for c in brief.clauses]


def test_sizes_and_times_listed_with_slashes():
    brief = _brief("waves 2/4/7 from the east at 0:50/1:50/2:50; keep the storage alive till 4:00")
    c = brief.concepts
    assert c.wave_sizes == [2, 4, 7] and c.wave_times == [50, 110, 170]
    gdd = design(brief)
    (waves,) = [rc for rc in gdd.rule_components if rc.id == "escalating_waves"]
    assert waves.params["sizes"] == [2, 4, 7] and waves.params["times"] == [50, 110, 170]


def test_one_size_said_of_raids_is_every_raids_size_not_waves_beside_them():
    c = read("Enemy raiders hit the storage from the west every 50 seconds, 7 units each, for 5 minutes.").concepts
    assert c.raids and c.raid_size == 7 and c.wave_sizes == []


def test_a_side_named_again_in_order_is_that_waves_side_and_the_schedule_is_the_requests():
    brief = _brief("hold the ridge against three columns of light tanks, 8 units each, from the east then the north "
                   "then the east again, one every 70 seconds")
    c = brief.concepts
    assert c.waves == 3 and c.wave_sizes == [8, 8, 8] and c.directions == ["e", "n", "e"]
    gdd = design(brief)
    (waves,) = [rc for rc in gdd.rule_components if rc.id == "escalating_waves"]
    assert waves.params["from"] == ["east", "north", "east"] and waves.params["interval"] == 70
    # sides in order and the interval are the request's: only how late each wave comes is drawn
    assert gdd.variation.fixed_by and "then the east again" in gdd.variation.fixed_by


def test_sizes_said_apart_from_the_waves_are_their_sizes():
    c = read("Survive 8 minutes against five escalating waves of assault bots, sizes 4, 6, 8, 10 and 12, arriving "
             "every 90 seconds from a random side.").concepts
    assert c.wave_sizes == [4, 6, 8, 10, 12] and c.waves == 5
    assert read("defend against three waves from the west (headcounts 3/5/9)").concepts.wave_sizes == [3, 5, 9]
