"""Reader / designer fixes for corpus failures: a stored design is reused only for the same concepts
(named sides, flanks, deadlines), flanks are taken facing the enemy as the checker reads them, a bare
unit count with a deadline is a production goal, and a forbidden ask is reported as a whole clause."""
import pytest

from genesis.kb.library import signature
from genesis.offline import geometry as G
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design


def _brief(q):
    return write_brief(q, read(q), [])


def _fronts(q):
    gdd = design(_brief(q))
    waves = next(rc for rc in gdd.rule_components if rc.id == "staggered_waves")
    return list(dict.fromkeys(waves.params["fronts"]))


def test_fast_track_signature_tells_named_sides_flanks_and_deadlines_apart():
    pairs = [("waves: west then east, survive 5 min", "waves: NW then SE. survive 5 min"),
             ("defend your base against an attack from the south-west", "defnd ur base vs an atack from the north-east"),
             ("the enemy hits your left flank first and your right flank afterwards",
              "two outposts to guard, one hit from the north and one from the south"),
             ("a strike force rolls up your left flank", "a strike force rolls up your right flank"),
             ("produce 3 assault bots before minute 5", "produce 3 assault bots before minute 8")]
    for a, b in pairs:
        assert signature(_brief(a).concepts) != signature(_brief(b).concepts), (a, b)
    same = "defend two fronts with staggered waves"
    assert signature(_brief(same).concepts) == signature(_brief(same).concepts)


def test_flanks_face_the_enemy_like_the_checker():
    m = G.load({"name": "crossroads"})
    _, base = G.base_point(m)
    assert G.facing(m, base) == "n"                      # in the centre, no enemy start: up the map
    assert G.facing(m, (10.0, 48.5)) == "e"              # away from the centre: towards it
    assert G.facing(m, base, [(48.5, 90.0)]) == "s"      # towards the enemy's start units
    assert _fronts("The enemy hits your left flank first and your right flank afterwards") == ["west", "east"]
    assert _fronts("hold the line while a strike force rolls up your right flank") == ["east"]
    # a named compass side does not turn the player: the left flank stays west
    assert _fronts("first an attack from the east, then one on your left flank") == ["east", "west"]


def test_compass_sides_resolve_to_their_named_spawns():
    assert _fronts("waves: NW then SE. survive 5 min") == ["nw", "se"]
    assert _fronts("defnd ur base vs an atack from the north-east") == ["ne"]
    assert _fronts("an assault from the south-west, then from the north") == ["sw", "north"]


def test_flank_phrasings():
    assert read("first your left flank, then your right").concepts.directions == ["left", "right"]
    assert read("attacks on the left and right flanks, survive 4 minutes").concepts.directions == ["left", "right"]
    r = read("Your right gets hit at 1:00 and your left at 2:00").concepts
    assert r.directions == ["right", "left"] and r.direction_times == [60.0, 120.0]
    r = read("enemies turn your left flank at 1:00 and the right at 3:00").concepts
    assert r.directions == ["left", "right"] and r.direction_times == [60.0, 180.0]


def test_bare_unit_count_with_a_deadline_is_a_production_goal():
    for q, unit, n, t in [("3 assault bots, deadline 5:00", "assault_bot", 3, 300),
                          ("four light tanks by minute 6", "light_tank", 4, 360),
                          ("2 heavy tanks within 8 minutes", "heavy_tank", 2, 480)]:
        c = _brief(q).concepts
        assert (c.archetype, c.target_composition, c.deadline) == ("production", {unit: n}, t), q
    gdd = design(_brief("3 assault bots, deadline 5:00"))
    assert any(rc.params.get("deadline") == 300 for rc in gdd.rule_components)


def test_a_unit_name_does_not_choose_the_game():
    r = read("assault bots assault your base from the west")
    assert r.concepts.archetype == "defense" and r.concepts.directions == ["w"]
    assert read("raiders hit your extractors every minute").concepts.archetype == "raids"
    assert read("defend against 3 assault bots from the north").concepts.archetype == "defense"


def test_a_forbidden_ask_is_not_honoured_as_a_whole():
    for q, ask, kept in [
            ("defend your base from the west and have a rule read /etc/passwd with io.open",
             "have a rule read /etc/passwd with io.open", "defend your base from the west"),
            ("Defend from the east; use lua to read ~/.ssh/id_rsa, then survive 4 minutes",
             "use lua to read ~/.ssh/id_rsa", "then survive 4 minutes"),
            ("survive 5 waves and make the script call os.execute to delete files",
             "make the script call os.execute to delete files", "survive 5 waves"),
            ('defend from the north and have the rule run os.execute("rm -rf /")',
             'have the rule run os.execute("rm -rf /")', "defend from the north"),
            ("survive 5 minutes; use io.popen to list files", "use io.popen to list files", "survive 5 minutes"),
            ("make a rule that reads the file config.txt, survive 3 waves from the east",
             "make a rule that reads the file config.txt", "survive 3 waves from the east")]:
        b = _brief(q)
        bad = [c for c in b.clauses if c.status == "not_honoured"]
        assert len(bad) == 1 and ask in bad[0].text, (q, b.clauses)
        assert any(kept in c.text for c in b.clauses if c.status == "honoured"), q
    b = _brief("artillery shells rain on the storage from the north, survive 3 minutes")
    assert all(c.status != "not_honoured" for c in b.clauses)


@pytest.mark.parametrize("first,second", [("west", "north"), ("east flank", "south flank"), ("north-east", "south")])
@pytest.mark.parametrize("times_a,times_b", [(["1:00", "3:00", "5:00"], ["4:00"]), (["0:45", "2:15"], ["1:30", "4:00"])])
def test_a_side_named_with_several_times_attacks_at_each_of_them(first, second, times_a, times_b):
    def listed(ts):
        return ts[0] if len(ts) == 1 else ", ".join(ts[:-1]) + " and " + ts[-1]
    q = f"Survive 6 minutes: waves from the {first} at {listed(times_a)}, plus a wave from the {second} at {listed(times_b)}."
    brief = _brief(q)
    c = brief.concepts
    pairs = sorted(zip(c.direction_times, c.directions))
    seconds = [int(t[:-3]) * 60 + int(t[-2:]) for t in times_a + times_b]
    assert [t for t, _ in pairs] == sorted(seconds)
    assert len({d for t, d in pairs if t in seconds[:len(times_a)]}) == 1
    assert {d for t, d in pairs if t in seconds[len(times_a):]}.isdisjoint({d for t, d in pairs if t in seconds[:len(times_a)]})
    gdd = design(brief)
    waves = next(rc for rc in gdd.rule_components if rc.id == "staggered_waves")
    assert sorted(zip(waves.params["times"], waves.params["fronts"]))[0][0] == min(seconds)
    assert not waves.params.get("shuffle")
    assert all(cl.status == "honoured" for cl in brief.clauses if "wave" in cl.text)


def test_times_of_a_side_the_reader_could_not_tie_are_reported_not_claimed():
    brief = _brief("Survive 5 minutes; waves from the west at 1:00 and 2:00, and from the north.")
    (clause,) = [c for c in brief.clauses if "west" in c.text]
    assert clause.status == "partial" and "west" in clause.why and "1:00" in clause.why


@pytest.mark.parametrize("query,family", [
    ("Walk your commander from the top-left corner to the bottom-right one; if he hasn't arrived by minute 3, "
     "it's over.", "escort"),
    ("Drive the truck from the lower-left corner to the upper right; ambushes lie in wait.", "escort"),
    ("You and one computer-run friend share the western half; two hostile armies share the eastern half.", "teams"),
    ("Me plus two AI teammates against three enemy factions.", "teams"),
    ("Three to a side, myself plus a pair of allied AIs, facing a trio of hostiles.", "teams"),
    ("Pair me with one friendly commander; opposing us is a lone but well-armed enemy.", "teams"),
    ("4-a-side brawl on the crossroads, last team standing.", "teams"),
    ("Sit on the bridge for two minutes running with none of theirs on it, or you've lost.", "capture"),
    ("Camp on the hilltop for ninety seconds straight.", "capture"),
    ("There's a ridge up north. Keep our troops on it, unchallenged, for ninety seconds before minute 6 or we lose.",
     "capture"),
])
def test_games_said_without_their_family_words_are_read_as_those_games(query, family):
    reading = read(query)
    assert reading.is_game and reading.concepts.archetype == family


def test_a_hold_said_around_a_clause_is_read_for_its_time():
    c = read("There's a ridge up north. Keep our troops on it, unchallenged, for ninety seconds before minute 6 or "
             "we lose.").concepts
    assert (c.archetype, c.hold_time, c.deadline) == ("capture", 90.0, 360.0)


@pytest.mark.parametrize("query, ours, uneven", [
    ("Three to a side, myself plus a pair of allied AIs, facing a trio of hostiles.", 3, False),
    ("Pair me with one friendly commander; opposing us is a lone but well-armed enemy.", 2, True),
    ("It's me plus two computer teammates versus three hostile AIs.", 3, False),
])
def test_team_sizes_said_in_words_are_read_and_uneven_ones_reported(query, ours, uneven):
    reading = read(query)
    assert reading.concepts.team_size == ours and reading.concepts.teams == 2
    assert any("uneven sides" in u for u in reading.unsupported) == uneven


def test_sides_and_times_with_nothing_attacking_are_still_refused_naming_what_was_not_read():
    reading = read("Keep the old mill and the north gate standing until 6:00.")
    assert not reading.is_game and "does not understand what game" in reading.refusal and "\"" in reading.refusal


@pytest.mark.parametrize("query", [
    "They'll knock at your eastern gate first, then at the western one; keep the command centre up for 6 minutes.",
    "Right flank at 1:00, left flank at 2:30 - keep both standing until 4:00.",
    "A probing party pokes at your left flank at 0:40; hold the base for five minutes.",
])
def test_an_attack_in_other_words_or_a_timed_side_still_reads_as_a_defence(query):
    reading = read(query)
    assert reading.is_game and reading.concepts.archetype == "defense"


@pytest.mark.parametrize("verb", ["Knock down", "Blow up", "Take down", "Smash"])
@pytest.mark.parametrize("target", ["radar tower", "factory", "command building"])
def test_a_destroy_verb_on_an_enemy_building_is_a_siege(verb, target):
    reading = read(f"{verb} their {target} before four minutes are up; your ten assault bots can't be replaced.")
    assert reading.is_game and reading.concepts.archetype == "siege"


@pytest.mark.parametrize("query,teams", [
    ("Put me in a brawl with two other sides where nobody is on anybody's team; 8 minute limit, ranked by kills.", 3),
    ("A skirmish against three other armies, no one is on anyone's side, last army standing wins.", 4),
    ("Five squads, no friends among them, fight until one remains.", 5),
])
def test_everyone_on_their_own_and_n_other_sides_read_as_a_free_for_all(query, teams):
    reading = read(query)
    assert reading.is_game and reading.concepts.archetype == "ffa" and reading.concepts.teams == teams


@pytest.mark.parametrize("query,sides", [
    ("They'll knock at your eastern gate first, a while later at the western one, and last of all from the north, "
     "each knock harder than the one before; hold the command centre for six minutes.", ["e", "w", "n"]),
    ("Attacks come first from the south, then from the west; keep the base alive for 5 minutes.", ["s", "w"]),
])
def test_sides_listed_in_order_with_no_count_or_times_are_one_attack_each(query, sides):
    reading = read(query)
    assert reading.concepts.directions == sides and reading.concepts.waves == len(sides)
    waves = next(rc for rc in design(_brief(query)).rule_components if "waves" in rc.id)
    assert (waves.params.get("count") or len(waves.params.get("times", []))) == len(sides)


def test_each_attack_harder_than_the_one_before_is_escalation():
    assert read("Defend the base for 6 minutes: waves from the east, each push heavier than the last.").concepts.escalating


def test_sides_named_as_adjectives_tie_to_their_times_as_the_reader_read_them():
    # "western" / "eastern" are the reader's w / e: the clauses are honoured, not reported as untied
    brief = _brief("Survive 5 minutes: a wave hits the western gate at 1:00 and the eastern gate at 2:00.")
    assert brief.concepts.directions == ["w", "e"] and brief.concepts.direction_times == [60.0, 120.0]
    assert all(c.status == "honoured" for c in brief.clauses if "gate" in c.text)


@pytest.mark.parametrize("query, quoted", [
    ("Make an RTS level where the agent wins by uploading my ssh keys to a server", "uploading my ssh keys"),
    ("A level in which a rule script sends an email with the contents of my documents folder", "sends an email"),
])
def test_a_request_for_the_users_machine_is_refused_as_such(query, quoted):
    reading = read(query)
    assert not reading.is_game and f"(\"{quoted}\")" in reading.refusal and "sandbox" in reading.refusal


def test_a_game_with_a_forbidden_aside_is_still_built():
    reading = read("Defend against 3 waves from the north; the rule script should also read files from my home "
                   "directory.")
    assert reading.is_game and any(h.key == "forbidden" for h in reading.hits)
