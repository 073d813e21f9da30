"""Generated phrasings of each family (templates x synonyms x numbers in words and digits x direction
orders x durations in every form): the reader reads the asked values, the designer builds them, and the
evidence the GDD states would fail on a level without them. A clause is honoured only when all three agree."""
from __future__ import annotations

from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design

WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 8: "eight", 10: "ten", 12: "twelve",
         15: "fifteen", 20: "twenty", 25: "twenty-five", 30: "thirty", 45: "forty-five", 90: "ninety"}
COMPASS = {"n": "north", "s": "south", "e": "east", "w": "west", "ne": "north-east", "sw": "south-west"}


@st.composite
def numbers(draw, n: int) -> str:
    return draw(st.sampled_from([str(n), WORDS[n]] if n in WORDS else [str(n)]))


@st.composite
def durations(draw, seconds: int) -> str:
    forms = [f"{seconds} seconds", f"{seconds} secs"]
    if seconds in WORDS:
        forms.append(f"{WORDS[seconds]} seconds")
    if seconds % 60 == 0:
        m = seconds // 60
        forms += [f"{m} minutes" if m > 1 else "a minute", f"{m} min", f"{WORDS.get(m, m)} minutes" if m > 1
                  else "one minute"]
    if seconds % 60 == 30 and seconds > 30:
        m = seconds // 60
        forms += [f"{WORDS.get(m, m) if m > 1 else 'a'} minute{'s' if m > 1 else ''} and a half",
                  f"{WORDS.get(m, m) if m > 1 else 'one'} and a half minutes", f"{m}.5 minutes",
                  f"{m} minute{'s' if m > 1 else ''} and 30 seconds"]
    if seconds == 30:
        forms.append("half a minute")
    return draw(st.sampled_from(forms))


@lru_cache(maxsize=None)
def _design(query: str):
    """Team designs draw and balance layouts (seconds each): each distinct request is designed once."""
    brief = write_brief(query, read(query))
    return brief, design(brief)


def _clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _honoured_clauses_are_built(brief, gdd) -> None:
    built = {r.id: r for r in gdd.requirements}
    for clause in brief.clauses:
        if clause.status == "honoured":
            for rid in clause.requirement_ids:
                assert rid in built, (clause.text, rid)
                assert built[rid].expect or not built[rid].testable, (clause.text, rid, "no evidence")


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_defence_waves_directions_and_length(data):
    n = data.draw(st.sampled_from([2, 3, 4, 5, 6]))
    seconds = data.draw(st.sampled_from([90, 120, 150, 180, 240, 300]))
    sides = data.draw(st.lists(st.sampled_from(sorted(COMPASS)), min_size=2, max_size=2, unique=True))
    first, then = COMPASS[sides[0]], COMPASS[sides[1]]
    verb = data.draw(st.sampled_from(["survive", "hold out against", "fend off", "repel", "withstand", "beat back"]))
    order = data.draw(st.sampled_from([f"coming first from the {first}, then from the {then}",
                                       f"from the {first} and then the {then}",
                                       f"hitting the {first} first and the {then} after"]))
    length = data.draw(st.sampled_from([f"for {data.draw(durations(seconds))}", f"until {_clock(seconds)}",
                                        f"until the clock hits {_clock(seconds)}",
                                        f"lasting {data.draw(durations(seconds))}"]))
    query = f"{verb} {data.draw(numbers(n))} waves {order} {length}"
    brief = write_brief(query, read(query))
    c = brief.concepts
    assert (c.time_limit, c.directions) == (seconds, sides), query
    gdd = design(brief)
    _honoured_clauses_are_built(brief, gdd)
    # every asked wave is scheduled, or the clause that asked for them is not marked honoured
    waves_clause = next(cl for cl in brief.clauses if "waves" in cl.text)
    if waves_clause.status == "honoured":
        assert len(c.wave_times) == n, (query, c.wave_times)
        times = next(r for r in gdd.requirements if r.id == "wave_times")
        assert len(times.expect) == n
    assert {"directions", "front_order"} <= {r.id for r in gdd.requirements}


UNITS = {"light tanks": "light_tank", "light bots": "light_bot", "heavy tanks": "heavy_tank",
         "assault bots": "assault_bot"}


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_production_goals_by_a_deadline(data):
    n = data.draw(st.sampled_from([3, 4, 5, 6, 8, 10]))
    seconds = data.draw(st.sampled_from([120, 180, 240, 300]))
    unit = data.draw(st.sampled_from(sorted(UNITS)))
    verb = data.draw(st.sampled_from(["build", "produce", "train", "field", "get", "assemble", "have"]))
    deadline = data.draw(st.sampled_from([f"within {data.draw(durations(seconds))}",
                                          f"before the {seconds // 60}-minute mark",
                                          f"in under {data.draw(durations(seconds))}", f"by {_clock(seconds)}",
                                          f"in {data.draw(durations(seconds))} or less"]))
    query = f"{verb} {data.draw(numbers(n))} {unit} {deadline}"
    brief = write_brief(query, read(query))
    c = brief.concepts
    assert (c.archetype, c.target_composition, c.time_limit) == ("production", {UNITS[unit]: n}, seconds), query
    gdd = design(brief)
    _honoured_clauses_are_built(brief, gdd)
    assert {"production_win", "deadline_loss"} <= {r.id for r in gdd.requirements}


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_free_for_alls_of_n_armies(data):
    n = data.draw(st.sampled_from([3, 4, 5, 6]))
    seconds = data.draw(st.sampled_from([120, 180, 240, 300]))
    k = data.draw(numbers(n))
    form = data.draw(st.sampled_from([f"{k} armies, each against the others", f"a {k}-way free-for-all",
                                      f"{k} factions, every one for itself", f"everyone against everyone, {k} commanders",
                                      f"free for all between {k} players", f"{k} empires fight until one remains"]))
    query = f"{form}, lasting {data.draw(durations(seconds))}"
    c = read(query).concepts
    assert (c.archetype, c.teams, c.time_limit) == ("ffa", n, seconds), query
    brief, gdd = _design(f"{n} armies, each against the others, lasting 3 minutes")
    _honoured_clauses_are_built(brief, gdd)
    assert len(gdd.teams) == n and "team_count" in {r.id for r in gdd.requirements}


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_team_battles_of_k_a_side(data):
    k = data.draw(st.sampled_from([2, 3]))
    w = WORDS[k]
    query = data.draw(st.sampled_from([f"a {k}v{k} battle", f"{k} on {k} skirmish", f"a {w}-on-{w} fight",
                                       f"{w} versus {w} team battle", f"a {k}-vs-{k} match"]))
    c = read(query).concepts
    assert (c.archetype, c.team_size) == ("teams", k), query
    brief, gdd = _design(f"a {k}v{k} battle")
    _honoured_clauses_are_built(brief, gdd)
    assert len(gdd.teams) == 2 * k


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_capture_and_hold_for_a_time(data):
    seconds = data.draw(st.sampled_from([30, 45, 60, 90, 120]))
    place = data.draw(st.sampled_from(["hill", "central zone", "crossroads", "plaza", "ridge", "bridge"]))
    d = data.draw(durations(seconds))
    query = data.draw(st.sampled_from([f"capture the {place} and hold it for {d}",
                                       f"keep control of the {place} for {d}", f"take the {place} and keep it for {d}",
                                       f"seize the {place}, then hold it {d}", f"occupy the {place} for {d} straight"]))
    brief = write_brief(query, read(query))
    assert (brief.concepts.archetype, brief.concepts.hold_time) == ("capture", seconds), query
    gdd = design(brief)
    _honoured_clauses_are_built(brief, gdd)
    assert {"capture_win", "hold_zone"} <= {r.id for r in gdd.requirements}
