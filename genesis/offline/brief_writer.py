"""Stage 1 offline: concepts -> a structured scenario brief."""
from __future__ import annotations

import dataclasses
import re

from engine.catalog import load_catalog
from genesis.models import Brief, Clarification, ClauseAccount, Concepts, Requirement
from genesis.quantities import clock
from genesis.offline.clauses import account, unsupported_lines
from genesis.offline import geometry as G
from genesis.offline import variation, wave_growth
from genesis.offline.composed_designs import ZONE_EVERY
from genesis.offline.concepts import _NUM, Reading, artillery_siege, number, siege_garrison

COMPETENCY = {
    "defense": "spatial_temporal_reasoning",
    "raids": "spatial_temporal_reasoning",
    "production": "resource_management",
    "ffa": "opponent_modelling",
    "teams": "collaboration",
    "siege": "adversarial_planning",
    "capture": "spatial_temporal_reasoning",
    "escort": "spatial_temporal_reasoning",
    "recon": "spatial_temporal_reasoning",
    "micro": "adversarial_planning",
    "resources": "resource_management",
}

ATTACKED_RACE_TIME_LIMIT = 900.0    # a production race under timed enemy attacks, when no duration is given
DEFAULT_TIME_LIMIT = {"defense": 300.0, "raids": 420.0, "production": 600.0, "ffa": 240.0, "teams": 300.0,
                      "siege": 480.0, "capture": 300.0, "escort": 300.0,
                      "recon": 180.0, "micro": 180.0, "resources": 300.0}


# What each clarifying question asks, how to spot it (also when re-asked) and what answer it needs.
_QUESTIONS = {
    "fronts": ("From how many directions should the enemy attack? (e.g. 2)", "directions",
               "a number of directions, e.g. 2"),
    "duration": ("How long should the scenario last, in minutes? (e.g. 5)", "how long",
                 "a number of minutes, e.g. 5"),
    "fog": ("Should fog of war be on? (yes/no)", "fog", "yes or no"),
}
_YES = {"yes", "y", "on", "true", "sure", "yeah", "yep", "enabled"}
_NO = {"no", "n", "off", "false", "nope", "disabled", "none", "without"}
_ANSWER_NUMBER = rf"\b{_NUM}\b\s*(hours?|hrs?|minutes?|mins?|seconds?|secs?)?"
MAX_ASKS = 2  # a question whose answer cannot be used is asked once more, then left at its default


def questions(c: Concepts) -> list[str]:
    """Clarifying questions for what the request left open (asked only in interactive mode)."""
    kinds = []
    if c.archetype in ("defense", "raids") and c.fronts is None and not c.random_side:
        kinds.append("fronts")
    if c.time_limit is None:
        kinds.append("duration")
    if c.fog is None:
        kinds.append("fog")
    return [_QUESTIONS[k][0] for k in kinds]


def _kind(question: str) -> str | None:
    return next((k for k, (_, marker, _) in _QUESTIONS.items() if marker in question.lower()), None)


def read_answer(kind: str, answer: str):
    """The value an answer gives its question (fronts: int, duration: seconds, fog: bool), or None
    when the answer cannot be used."""
    a = " ".join(answer.lower().split())
    if kind == "fog":
        words = set(re.findall(r"[a-z]+", a))
        yes, no = bool(words & _YES), bool(words & _NO)
        return yes if yes != no else None
    m = re.search(_ANSWER_NUMBER, a)
    if m is None:
        return None
    value = number(m.group(1))
    if kind == "fronts":
        return max(1, min(4, int(value)))
    unit = m.group(2) or "minutes"
    return min(3600.0, value * (3600 if unit.startswith("h") else 1 if unit.startswith("s") else 60))


def _final_answers(answers: list[Clarification]) -> dict[str, tuple[str, str, int]]:
    """Per question kind: the latest non-empty answer, its question, and how often the kind was asked."""
    final: dict[str, tuple[str, str, int]] = {}
    asked: dict[str, int] = {}
    for qa in answers:
        kind = _kind(qa.question)
        if kind is None:
            continue
        asked[kind] = asked.get(kind, 0) + 1
        if (qa.answer or "").strip():
            final[kind] = (qa.question, qa.answer.strip(), asked[kind])
        elif kind in final:
            final[kind] = (*final[kind][:2], asked[kind])
    return final


def follow_up_questions(answers: list[Clarification]) -> list[str]:
    """Each question whose answer cannot be used, asked once more with what the answer needs."""
    again = []
    for kind, (_, answer, asked) in _final_answers(answers).items():
        if read_answer(kind, answer) is None and asked < MAX_ASKS:
            base, _, expected = _QUESTIONS[kind]
            again.append(f"{base} I could not use \"{answer[:80]}\": please answer with {expected}.")
    return again


def apply_answers(c: Concepts, answers: list[Clarification]) -> tuple[list[str], list[str]]:
    """Fold the user's answers into the concepts; returns what was taken from them and the answers
    that could not be used (for "Not honoured")."""
    taken, unusable = [], []
    for kind, (question, answer, _) in _final_answers(answers).items():
        value = read_answer(kind, answer)
        if value is None:
            base, _, expected = _QUESTIONS[kind]
            unusable.append(f"your answer \"{answer[:80]}\" to \"{base}\" could not be used (it needs {expected}): "
                            "the default was kept")
        elif kind == "fronts":
            c.fronts = value
            taken.append(f"fronts = {c.fronts} (from your answer)")
        elif kind == "duration":
            c.time_limit = value
            taken.append(f"time limit = {clock(c.time_limit)} (from your answer)")
        else:
            c.fog = value
            taken.append(f"fog of war = {'on' if c.fog else 'off'} (from your answer)")
    return taken, unusable


def without_requirements(brief: Brief, unbuilt: set[str]) -> Brief:
    """The brief without the requirements the design cannot evidence: each clause they checked is partial
    (its other requirements still check the rest) or not honoured, saying what was not built."""
    gone = {r.id: r.text for r in brief.requirements if r.id in unbuilt}
    if not gone:
        return brief
    texts = {r.id: r.text for r in brief.requirements}
    clauses = []
    for cl in brief.clauses:
        lost = [rid for rid in cl.requirement_ids if rid in gone]
        if not lost or cl.status not in ("honoured", "partial", "assumed"):
            clauses.append(cl)
            continue
        kept = [rid for rid in cl.requirement_ids if rid not in gone]
        why = "; ".join(filter(None, [cl.why if cl.status == "partial" else "", "not built: " + "; ".join(
            gone[rid] for rid in lost) + " (the offline design has no mechanic that shows it)"]))
        clauses.append(cl.model_copy(update=(
            {"status": "partial", "requirement_ids": kept, "why": why,
             "built": cl.built or "; ".join(texts[rid] for rid in kept)} if kept else
            {"status": "not_honoured", "requirement_ids": [], "why": why, "built": ""})))
    changed = [cl.why for cl, before in zip(clauses, brief.clauses) if cl is not before]
    return brief.model_copy(update={
        "requirements": [r for r in brief.requirements if r.id not in gone], "clauses": clauses,
        "unsupported": list(dict.fromkeys([*brief.unsupported, *changed]))})


def unread_game(clauses: list[ClauseAccount]) -> str | None:
    """Why no level is built when most of the request is not understood and no clause of it is built in full:
    whatever the family builds from the rest would be another game than the one asked (None otherwise)."""
    unread = [cl for cl in clauses if cl.status == "not_honoured"]
    if any(cl.status == "honoured" for cl in clauses) or 2 * len(unread) <= len(clauses):
        return None
    quoted = "; ".join(f'"{cl.text.strip(" ,;:.!?")}"' for cl in unread[:4]) + (" ..." if len(unread) > 4 else "")
    return (f"the offline backend does not understand {len(unread)} of the request's {len(clauses)} clauses ({quoted}) "
            "and builds none of the others in full: any level it made would be another game than the one asked. "
            "Say the game in other words, or use a model backend (--model)")


FAMILY_DEFAULT = "(the reference mini-game default)"     # a switch the request left open


def production_defaulted(brief: Brief) -> bool:
    """Production is on because the family defaults it on, not because the request said so."""
    return f"production on {FAMILY_DEFAULT}" in brief.assumptions


def write_brief(query: str, reading: Reading, clarifications: list[Clarification] | None = None) -> Brief:
    c = reading.concepts.model_copy(deep=True)
    assumptions = list(reading.assumptions)
    unsupported = list(reading.unsupported)
    if not reading.is_game:
        return Brief(query=query, title="(no scenario)", competency="spatial_temporal_reasoning",
                     summary=reading.refusal or "not a game request", composition="", enemy_behaviour=[],
                     win_conditions=[], loss_conditions=[], requirements=[], concepts=c,
                     is_game=False, refusal=reading.refusal, unsupported=unsupported,
                     clauses=account(query, reading, [], c.archetype))
    if clarifications:
        taken, unusable = apply_answers(c, clarifications)
        assumptions += taken
        unsupported += unusable
    arch = c.archetype
    if c.production and arch in ("ffa", "teams"):
        # the sides fight with their start armies: production asked for is reported, never claimed
        unbuilt = f"production in a {'free-for-all' if arch == 'ffa' else 'team battle'} is not built: every side " \
                  "fights with its start army"
        unsupported.append(unbuilt)
        reading = dataclasses.replace(reading, hits=[
            dataclasses.replace(h, problem=unbuilt) if h.key == "production_switch" else h for h in reading.hits])
    if c.time_limit is None and arch == "capture" and c.hold_time:
        c.time_limit = max(DEFAULT_TIME_LIMIT[arch], c.hold_time + 180)
        assumptions.append(f"no duration given: {clock(c.time_limit)} (time to take the zone and hold it)")
    raced = arch == "production" and bool(c.wave_times) and not c.probe_then_main   # a race under timed attacks
    if c.time_limit is None and raced:
        c.time_limit = ATTACKED_RACE_TIME_LIMIT
        assumptions.append(f"no duration given: {clock(c.time_limit)} (the timed attacks cost the economy time)")
    if c.time_limit is None and arch in ("ffa", "teams") and c.elimination:
        # an elimination is fought to the last rival: each more side needs another minute
        rivals = c.teams - 1 if arch == "ffa" else c.team_size
        c.time_limit = max(DEFAULT_TIME_LIMIT[arch], 180.0 + 60.0 * rivals)
        assumptions.append(f"no duration given: {clock(c.time_limit)} (time to eliminate every rival side)")
    if c.time_limit is None:
        c.time_limit = DEFAULT_TIME_LIMIT[arch]
        assumptions.append(f"no duration given: {clock(c.time_limit)}")
    if c.time_limit < 60:
        unsupported.append(f"a {c.time_limit:.0f}-second game is too short to play; raised to 1:00")
        c.time_limit = 60.0
    if c.fog is None and raced:
        c.fog = False
        assumptions.append("fog of war off: the base's guard must see a timed attack coming")
    if c.fog is None:
        c.fog = arch in ("production", "siege", "raids") or c.scouting
        assumptions.append(f"fog of war {'on' if c.fog else 'off'} {FAMILY_DEFAULT}")
    if c.production is None:
        c.production = arch in ("production", "siege")
        assumptions.append(f"production {'on' if c.production else 'off'} {FAMILY_DEFAULT}")
    # waves, their sides and the objectives they hit are a defence's: a capture's counterattacks are its own
    if arch in ("defense", "raids"):
        if c.fronts is None and c.map_hint == "river_bridges":
            c.fronts = 1
            assumptions.append("one front: the enemy comes across the river to the bridge you hold")
        if c.fronts is None and c.probe_then_main:
            # the sides are left open: each game draws them, so only watching tells where each attack comes
            c.fronts = 3
            assumptions.append("three possible sides: the probe and the main attack each come from one, drawn per "
                               "game, never the same")
        if c.fronts is None:
            # raids and scouting draw their sides per game: three give a game enough to vary (air raids on
            # what a bomb or two destroys keep two: their anti-air cover at home is laid out for two fronts)
            c.fronts = 3 if c.random_side or c.scouting or (arch == "raids" and not _bomb_fragile(c)) else 2
            assumptions.append(f"no number of directions given: {c.fronts}")
        if c.fronts > 4:
            unsupported.append(f"{c.fronts} fronts requested; maps offer at most 4 approaches")
            c.fronts = 4
        if c.waves is None:
            c.waves = _default_waves(c)
            assumptions.append(f"{c.waves} {'raids' if c.wave_interval else 'waves'}")
        overgrown = wave_growth.unfair(c) if c.escalating else ""
        if overgrown:
            # the growth is kept and the count cut: the clause that asked for it is reported
            c.waves = wave_growth.fair_count(max(1.0, c.growth_factor or 1.0), c.waves)
            c.wave_times = c.wave_times[:c.waves]
            unsupported.append(overgrown)
            reading = dataclasses.replace(reading, hits=[
                dataclasses.replace(h, problem=overgrown) if h.key in ("escalating", "waves") else h
                for h in reading.hits])
        if c.wave_sizes and max(c.wave_sizes) > wave_growth.MAX_WAVE:
            oversized = (f"waves of {', '.join(map(str, c.wave_sizes))} units: no fixed defence is a fair match past "
                         f"{wave_growth.MAX_WAVE} a wave; the waves' sizes are the design's")
            unsupported.append(oversized)
            c.wave_sizes = []
            reading = dataclasses.replace(reading, hits=[
                dataclasses.replace(h, problem=oversized) if h.key == "wave_sizes" else h for h in reading.hits])
        if c.objective_type is None and c.protect_unit:
            c.objective_type, c.objectives = c.protect_unit, c.objectives or 1
            assumptions.append(f"the {c.protect_unit.replace('_', ' ')} to keep alive is the objective")
        if c.objective_type is None:
            c.objective_type = "metal_storage"
            assumptions.append("the objectives to protect are metal storages")
        if c.objectives is None:
            c.objectives = 1 if c.map_hint == "river_bridges" else c.fronts
            assumptions.append(f"{c.objectives} objective(s) to protect")
        if not c.wave_times and not c.wave_interval and not c.escalating and not c.probe_then_main:
            c.wave_times = _schedule(c)
            if len(c.wave_times) < c.waves:
                cut = (f"{c.waves} waves do not fit a {clock(c.time_limit)} game ({clock(MIN_WAVE_STEP)} s apart "
                       f"at the closest, the last {clock(WAVE_TAIL)} s before the end): {len(c.wave_times)} are built")
                c.waves = len(c.wave_times)
                unsupported.append(cut)
                reading = dataclasses.replace(reading, hits=[
                    dataclasses.replace(h, problem=cut) if h.key == "waves" else h for h in reading.hits])
            assumptions.append(("staggered " if c.staggered else "") + "wave times "
                               + ", ".join(clock(t) for t in c.wave_times)
                               + (" (the first at the start of the window the request gives)" if c.attack_window
                                  else " (after time to scout)" if c.scouting else " (spread over the game)"))
    if arch == "teams":
        if c.team_size < 2:
            c.team_size = 2
            assumptions.append("no team size given: 2v2")
        if c.team_size > MAX_TEAM_SIZE:
            unsupported.append(f"{c.team_size}v{c.team_size} requested; maps hold at most "
                               f"{MAX_TEAM_SIZE}v{MAX_TEAM_SIZE}, so it is played {MAX_TEAM_SIZE}v{MAX_TEAM_SIZE}")
            c.team_size = MAX_TEAM_SIZE
        c.teams = 2 * c.team_size
        from genesis.offline import layout_variation   # here, not at the top: the families' own module

        if c.map_hint and not layout_variation.halves(G.spawns(G.load({"name": c.map_hint})), c.team_size):
            # "3v3 on the corridor map": its starts hold no two mirrored halves of three; the team map is used
            moved = (f"the {c.map_hint} map has no two opposite halves of {c.team_size} starts each: the "
                     f"{c.team_size}v{c.team_size} is played on crossroads")
            unsupported.append(moved)
            c.map_hint = "crossroads"
            reading = dataclasses.replace(reading, hits=[
                dataclasses.replace(h, problem=moved) if h.key == "map" else h for h in reading.hits])
    if arch == "production" and not c.target_composition:
        c.target_composition = {"assault_bot": 4}
        assumptions.append("no target composition given: 4 assault bots")
    if arch == "escort":
        # the time limit of an escort is its deadline: the unit arrives by then or the game is lost
        c.deadline = c.deadline or c.time_limit
        c.escort_unit = c.escort_unit or "commander"
        c.protect_unit = c.escort_unit
        c.wave_times, c.wave_interval = [], None
        if not c.ambush:
            assumptions.append("ambushes wait along the route (the request names no threat on the way)")
    if arch == "recon":
        c.deadline = c.deadline or c.time_limit
        c.wave_times, c.wave_interval = [], None
        if c.locate_count is None:
            c.locate_count = 4
        assumptions.append("each target is guarded by a turret that destroys a scout coming within its range")
    if arch == "micro":
        assumptions += _micro_defaults(c)
    if arch == "resources":
        c.deadline = c.deadline or c.time_limit
        from genesis.offline.resource_design import income_cap   # the family's own module, loaded when used

        cap = income_cap(c)
        if cap is not None and c.resource_amount > cap:
            short = (f"an income of {c.resource_amount:g} metal per second is more than the deposits within reach "
                     f"give: built as {cap:g}")
            c.resource_amount = float(cap)
            unsupported.append(short)
            reading = dataclasses.replace(reading, hits=[
                dataclasses.replace(h, problem=short) if h.key == "resource_goal" else h for h in reading.hits])
        # raids come at drawn times: only their interval is the request's
        c.wave_times = []
        if not c.raids:
            c.wave_interval = None
    if arch == "capture" and c.wave_interval and c.directions and not c.direction_times:
        c.directions, c.direction_times = _counterattack_schedule(c)
        assumptions.append("counterattacks at " + ", ".join(f"{clock(t)} from the {_SIDE_NAMES[d]}" for d, t in
                                                            zip(c.directions, c.direction_times)))
    if c.wave_times and c.time_limit and max(c.wave_times) >= c.time_limit:
        c.time_limit = max(c.wave_times) + 120
        assumptions.append(f"time limit extended to {clock(c.time_limit)} so every wave arrives")

    reqs: list[Requirement] = []
    win, loss, enemy = [], [], []
    if arch in ("defense", "raids"):
        enemy.append(f"enemy waves attack from {c.fronts} direction(s)"
                     + (", at staggered times" if c.staggered else "")
                     + (", each larger than the last" if c.escalating else "")
                     + (", from a random side each time" if c.random_side else ""))
        if c.air:
            enemy.append("an air assault arrives " + (f"at {clock(c.wave_times[-1])}" if c.wave_times else "late"))
        kept = c.keep_objectives if c.keep_objectives and c.keep_objectives < (c.objectives or 0) else None
        if arch == "raids" and not kept:
            assumptions.append(f"losing any {c.objective_type.replace('_', ' ')} loses and surviving until "
                               f"{clock(c.time_limit)} wins (the request names no end condition)")
        win.append(f"survive until {clock(c.time_limit)}")
        loss.append(f"fewer than {kept} of the {c.objectives} protected {c.objective_type.replace('_', ' ')}s are "
                    "left" if kept else
                    f"any of the {c.objectives} protected {c.objective_type.replace('_', ' ')}(s) is destroyed")
        if c.scouting:
            enemy.append("each attack comes from a side the player has not scouted")
            reqs.append(Requirement(id="scouting", text="each attack comes from a side the player has not scouted"))
        reqs.append(Requirement(id="fronts", text=(f"attacks may come from any of {c.fronts} directions" if c.scouting
                                                   else f"attacks come from {c.fronts} different directions"),
                                testable=not c.random_side or c.fronts > 1))
        if c.staggered or len(c.wave_times) > 1:
            reqs.append(Requirement(id="staggered", text="waves arrive at staggered times"))
        if c.wave_times:
            reqs.append(Requirement(id="wave_times", text="waves at " + ", ".join(clock(t) for t in c.wave_times)))
        if c.attack_window:
            lo, hi = c.attack_window
            reqs.append(Requirement(id="attack_window", text=f"the first attack comes at a time drawn between "
                                                             f"{clock(lo)} and {clock(hi)}"))
        if c.escalating:
            reqs.append(Requirement(id="escalation", text="each wave is larger than the last"))
        if c.wave_sizes:
            reqs.append(Requirement(id="wave_sizes", text="the waves have " + ", ".join(map(str, c.wave_sizes))
                                                          + " units, in that order"))
        if c.air:
            reqs.append(Requirement(id="air", text="an air assault takes place"))
        if c.wave_interval:
            reqs.append(Requirement(id="interval", text=f"raids every {clock(c.wave_interval)}"))
        if c.raid_size:
            reqs.append(Requirement(id="raid_size", text=f"each raid is {c.raid_size} units"))
        reqs.append(Requirement(id="objective_loss", text=("losing every objective loses the game" if kept == 1 else
                                                     f"fewer than {kept} objectives left loses the game") if kept
                                else "losing an objective loses the game", on="idle"))
        reqs.append(Requirement(id="survive_win", text=f"a good defence wins at {clock(c.time_limit)}"))
        if c.reinforcements:
            reqs.append(Requirement(id="reinforcements", text="the player's reinforcements arrive at "
                                                              + ", ".join(clock(t) for t in c.reinforcements)))
    elif arch == "production":
        comp = ", ".join(f"{n} {t.replace('_', ' ')}" for t, n in c.target_composition.items())
        timed = bool(c.wave_times) and not c.probe_then_main
        win.append(f"own {comp}" + (" and beat the enemy attack at " + ", ".join(clock(t) for t in c.wave_times)
                                    if timed else ""))
        loss.append(f"the deadline {clock(c.time_limit)} passes")
        if c.raids:
            who = "the enemy commander" if "commander" in c.unit_kinds else "enemy raiders"
            enemy.append(f"{who} raid the economy " + ("at unpredictable times" if c.random_timing
                                                        else "at " + ", ".join(clock(t) for t in c.wave_times)
                                                        if timed and not c.wave_interval else "from time to time"))
            reqs.append(Requirement(id="raids", text="enemy raids arrive during the game"))
            if "commander" in c.unit_kinds:
                reqs.append(Requirement(id="raider", text="the enemy commander leads the raids"))
                assumptions.append("the enemy commander leads two raids (a fresh raid party each time)")
            if c.random_timing:
                reqs.append(Requirement(id="random_timing", text="raids come at unpredictable times", testable=False))
            if not (timed and not c.wave_interval):
                assumptions.append("a guard, sized to beat one raid party and of no type the race asks for, "
                                   "protects the base")
        if timed:
            assumptions.append("a guard, an even match for one attack and of no type the race asks for, protects the "
                               "base")
        reqs.append(Requirement(id="production_win", text=f"producing {comp} wins"))
        reqs.append(Requirement(id="deadline_loss", text="missing the deadline loses", on="idle"))
    elif arch == "ffa":
        if c.elimination:
            win.append(f"be the last team {_LEFT[c.elimination]} by {clock(c.time_limit)}")
            loss.append(f"{_OUT[c.elimination]}, or another team is still in at {clock(c.time_limit)}")
            reqs.append(Requirement(id="elimination_win", text=f"a team is out once {_OUT_WHEN[c.elimination]}; the "
                                                                f"last team left by {clock(c.time_limit)} wins"))
            assumptions.append(f"with more than one team still in at {clock(c.time_limit)}, nobody wins")
        else:
            win.append(f"rank first by {c.ranking or 'damage efficiency'} at {clock(c.time_limit)}")
            loss.append("rank below first")
            reqs.append(Requirement(id="ranking", text="teams are ranked at the end"))
        enemy.append(f"{c.teams - 1} AI teams with equal forces fight everyone")
        reqs.append(Requirement(id="teams", text=f"{c.teams} teams with equal forces"))
    elif arch == "teams":
        enemy.append(f"{c.team_size} AI enemy teams attack the nearest enemy; your {c.team_size - 1} ally team(s) "
                     "are AI controlled")
        reqs.append(Requirement(id="alliances", text=f"{c.team_size}v{c.team_size} alliances"))
        reqs.append(Requirement(id="no_production", text="fixed forces, no production"))
        if c.elimination:
            win.append(f"the enemy alliance is out ({_ALLIANCE_OUT[c.elimination]}) by {clock(c.time_limit)}")
            loss.append(f"your alliance is out ({_ALLIANCE_OUT[c.elimination]}), or the enemy alliance is still in at "
                        f"{clock(c.time_limit)}")
            reqs.append(Requirement(id="elimination_win", text=f"an alliance is out once "
                                    f"{_ALLIANCE_OUT[c.elimination]}; the other wins, if by {clock(c.time_limit)}"))
            assumptions.append(f"with both alliances still in at {clock(c.time_limit)}, nobody wins")
        else:
            metric = (c.ranking or "damage_efficiency").replace("_", " ")
            win.append("the enemy alliance has no mobile units left, or yours holds the best-ranked team "
                       f"by {metric} at {clock(c.time_limit)}")
            loss.append("your alliance has no mobile units left, or the enemy holds the best-ranked team at the end")
            assumptions.append(f"a battle still undecided at {clock(c.time_limit)} goes to the alliance of the team "
                               f"with the best {metric}")
            reqs.append(Requirement(id="decisive", text="every battle ends with a winning alliance"))
    elif arch == "siege":
        win.append("destroy the enemy target structure")
        loss.append(f"the deadline {clock(c.time_limit)} passes")
        enemy.append("the enemy holds a static fortification of turrets around the target")
        guards = ", ".join(f"{n} {t.replace('_', ' ')}s" for t, n in c.guard_turrets.items())
        reqs.append(Requirement(id="fortification", text=f"the target is guarded by {guards}" if guards
                                else "the target is fortified with turrets"))
        reqs.append(Requirement(id="destroy_win", text="destroying the target wins"))
        reqs.append(Requirement(id="deadline_loss", text="the deadline loses", on="idle"))
        if garrison := siege_garrison(c):
            names = " and ".join((f"{c.garrison[t]} " if t in c.garrison else "") + t.replace("_", " ") + "s"
                                 for t in garrison)
            enemy.append(f"enemy {names} hold the base beside its turrets")
            reqs.append(Requirement(id="garrison", text=f"enemy {names} hold the base beside its turrets"))
        if artillery_siege(c):
            reqs.append(Requirement(id="artillery_only", text="the player's army is artillery only"))
    elif arch == "capture":
        win.append("hold the zone long enough")
        loss.append(f"the time runs out at {clock(c.time_limit)}")
        enemy.append("enemies contest the zone")
        reqs.append(Requirement(id="capture_win", text="holding the zone wins"))
    elif arch == "escort":
        vip = _escort_text(c)
        where = f"the {_SIDE_NAMES[c.escort_to]} {'corner' if len(c.escort_to) == 2 else 'edge'}" if c.escort_to \
            else "the far side of the map"
        win.append(f"bring {vip} to {where}")
        loss.append(f"the deadline {clock(c.deadline)} passes before it arrives")
        enemy.append("ambushes wait at sites along the route, drawn per game, and spring on the escorted unit")
        reqs.append(Requirement(id="escort_arrival", text=f"{vip} reaching {where} wins"
                                + (f", starting from the {_SIDE_NAMES[c.escort_from]}" if c.escort_from else "")))
        reqs.append(Requirement(id="ambush", text="ambushes along the route spring on the escorted unit, at sites "
                                                  "drawn per game"))
    elif arch == "recon":
        what = f"{c.locate_count} enemy {c.locate_type.replace('_', ' ')}s"
        win.append(f"see all {what}")
        loss.append(f"the deadline {clock(c.deadline)} passes before all are found")
        enemy.append("the targets stand at sites drawn per game, hidden by fog of war, each guarded by a turret")
        reqs.append(Requirement(id="locate_win", text=f"seeing all {what} wins"))
        reqs.append(Requirement(id="hidden_targets", text=f"the {what} stand at sites drawn per game, hidden by fog of "
                                                          "war until seen"))
    elif arch == "micro":
        mine, theirs = _force_text(c.squad), _force_text(c.enemy_force)
        win.append(f"destroy every enemy unit by {clock(c.deadline)}")
        loss.append(f"the deadline {clock(c.deadline)} passes with enemy units alive, or your squad is destroyed")
        enemy.append(f"{theirs} attack your squad from a side drawn per game")
        reqs.append(Requirement(id="eliminate_win", text="destroying every enemy unit wins"))
        reqs.append(Requirement(id="armies", text=f"your {mine} against {theirs}"
                                + (", your units faster and longer-ranged than theirs" if c.kiting else "")))
        reqs.append(Requirement(id="enemy_attacks", text="the enemy force attacks: a squad left idle is destroyed",
                                on="idle"))
        if c.max_losses is not None:
            loss.append(f"you lose more than {c.max_losses} units")
            reqs.append(Requirement(id="max_losses", text=f"losing more than {c.max_losses} of your units loses"))
    elif arch == "resources":
        goal = _resource_text(c)
        win.append(f"reach {goal}")
        loss.append(f"the deadline {clock(c.deadline)} passes before you do")
        reqs.append(Requirement(id="resource_win", text=f"reaching {goal} wins"))
        reqs.append(Requirement(id="resource_idle", text=f"a player who builds no economy never reaches {goal} and "
                                                         "loses by the deadline", on="idle"))
        if c.resource_keep:
            what = c.resource_keep.replace("_", " ")
            loss.append(f"a {what} of yours is destroyed")
            reqs.append(Requirement(id="resource_keep", text=f"losing a {what} loses the game"))
        if c.raids:
            enemy.append("enemy raiders harass the economy from sides and at times drawn per game")
            reqs.append(Requirement(id="raids", text="enemy raids arrive during the game"))
    reqs += _family_requirements(c, reading)
    if c.protect_unit:
        loss.append(f"your {c.protect_unit.replace('_', ' ')} is destroyed")
    composition = {
        "defense": "you command a fixed defence force around the objectives",
        "raids": "you hold an economy of extractors with a small defence force",
        "production": "you start with a commander and a constructor and build up an economy",
        "ffa": f"{c.teams} teams with equal mixed armies in the corners of an arena",
        "teams": f"{c.team_size}v{c.team_size}: each team starts with the same fixed forces",
        "siege": "you command an assault force against a fortified enemy base",
        "capture": "you and the enemy start with equal forces away from a central zone",
        "escort": "you command a guard force around the unit to escort",
        "recon": "you command one fast scout under fog of war",
        "micro": f"you command {_force_text(c.squad)} and nothing is built" if c.squad else "",
        "resources": "you start with builders and a little metal and energy, and grow an economy",
    }[arch]
    if artillery_siege(c):
        composition = "you command an artillery-only assault force against a turret line"
    if c.side_army or c.rival_army:
        reqs.append(Requirement(id="side_armies", text=_side_armies_text(c)))
    if c.elimination == "commanders" and arch in ("ffa", "teams") and "commander" not in c.side_army:
        assumptions.append("every team starts with one commander: the game is decided by the commanders' deaths")
    if c.player_start or c.player_metal is not None:
        given = [f"{n} {t.replace('_', ' ')}" for t, n in c.player_start.items()]
        given += [f"{c.player_metal:g} metal"] if c.player_metal is not None else []
        reqs.append(Requirement(id="start_forces", text="the player starts with " + ", ".join(given)))
    if c.unopposed:
        reqs.append(Requirement(id="unopposed", text="no enemy unit is on the map or arrives: nothing attacks the player"))
    if arch == "capture" and not (c.directions and c.direction_times):
        from genesis.offline import layout_variation as LV   # the families' own module, loaded when used

        if LV.zone_fixed(query) or any(r.id == "zone_side" for r in reqs):
            assumptions.append(f"counterattacks: a relief column every {clock(LV.RELIEF_INTERVAL)} from "
                               f"{clock(LV.RELIEF_FIRST_AT)} (each up to {LV.RELIEF_JITTER:g} s late), from a side "
                               "drawn per game")
        else:
            assumptions.append("the zone is one of several garrisoned outposts, drawn per game; no counterattacks")
    title = reading_title(query)
    clauses = account(query, reading, reqs, arch)
    if arch in ("defense", "raids"):
        clauses = [_wave_types_kept(cl, c, reading) for cl in clauses]
    unread = unread_game(clauses)
    if unread:
        return Brief(query=query, title="(no scenario)", competency="spatial_temporal_reasoning", summary=unread,
                     composition="", enemy_behaviour=[], win_conditions=[], loss_conditions=[], requirements=[],
                     concepts=c, is_game=False, refusal=unread, unsupported=unsupported_lines(clauses),
                     clauses=account(query, reading, [], arch))
    # each clause not honoured is listed with its own words (a capped demand replaces its bare reason)
    lines = unsupported_lines(clauses)
    unsupported = [u for u in unsupported if not any(u in line for line in lines)] + lines
    if arch == "micro" and not c.map_hint:
        assumptions.append("map: a generated open field")
    elif not c.map_hint:   # a map of its own choice is an assumption, named so the GDD stage sees its terrain
        from genesis.offline.gdd_writer import map_choice   # here: the GDD writer's modules load only when used

        chosen = map_choice(c, query)
        assumptions.append(f"map: {chosen['name']}" if "name" in chosen else "map: a generated map")
    return Brief(
        query=query, title=title, competency=COMPETENCY[arch],  # type: ignore[arg-type]
        summary=f"{title}: a {arch} scenario testing {COMPETENCY[arch].replace('_', ' ')}.",
        composition=composition, enemy_behaviour=enemy, win_conditions=win, loss_conditions=loss,
        requirements=reqs, concepts=c, assumptions=assumptions, unsupported=unsupported,
        clarifications=list(clarifications or []), clauses=clauses,
    )


_SIDE_NAMES = {**G.SIDE_NAMES, "left": "left flank", "right": "right flank"}


def _family_requirements(c: Concepts, reading: Reading) -> list[Requirement]:
    """The requirements of the concepts beyond the archetypes' own: named sides and their times and order,
    growth, probe and main attack, team counts, hold time, deadline, raid target and domain, a unit to keep
    alive and the level settings the request asks for."""
    keys = {h.key for h in reading.hits}
    arch = c.archetype
    # a capture's garrison and relief columns come from no named side at no named time, unless the request
    # names the counterattacks' sides and times: those are reported
    attacked = arch in ("defense", "raids") or (arch == "production" and (c.wave_times or c.raids)) \
        or (arch == "capture" and len(c.direction_times) == len(c.directions) > 0)
    reqs: list[Requirement] = []
    if c.directions and attacked:
        sides = ", ".join(_SIDE_NAMES[d] for d in c.directions)
        # a capture's counterattacks are seen in a game that lasts until them: the idle player's (a quick
        # hold wins before they come)
        on = "idle" if arch == "capture" else "reference"
        reqs.append(Requirement(id="directions", text=f"attacks come from the named sides: {sides}", on=on))
        if "front_order" in keys and len(c.directions) > 1:
            reqs.append(Requirement(id="front_order", text=f"the sides attack in the stated order: {sides}", on=on))
        if c.direction_times:
            reqs.append(Requirement(id="front_times", text="each side attacks at its stated time (within 10 s): "
                                    + ", ".join(f"{_SIDE_NAMES[d]} at {clock(t)}"
                                                for d, t in zip(c.directions, c.direction_times)), on=on))
    attackers_side = any(h.key == "directions"
                         and re.search(r"\bfrom\s+(?:the\s+)?$", reading.text[max(0, h.start - 12):h.start])
                         for h in reading.hits)
    if c.directions and arch == "capture" and len(set(c.directions)) == 1 and not c.direction_times \
            and not attackers_side:
        # "hold the western bridge": the zone stands on that side ("counterattacks from the south" is theirs)
        reqs.append(Requirement(id="zone_side", text=f"the zone to hold stands in the {_SIDE_NAMES[c.directions[0]]} "
                                                     "of the map", on="reference"))
    if c.directions and arch == "siege" and len(set(c.directions)) == 1 and not c.direction_times:
        # "the enemy base is in the west": the target's sites are drawn on that side
        reqs.append(Requirement(id="base_side", text=f"the target stands in the {_SIDE_NAMES[c.directions[0]]} of the "
                                                     "map", on="reference"))
    if c.growth_factor and attacked:
        reqs.append(Requirement(id="growth", text=f"each wave is at least {c.growth_factor:g} times the size of "
                                                  "the one before"))
    if c.probe_then_main and attacked:
        factor = c.main_factor or 2
        reqs.append(Requirement(id="probe_main", text=f"a small probe attacks first, then a main attack at least "
                                                      f"{factor:g} times its size"))
    if arch == "ffa":
        reqs.append(Requirement(id="team_count", text=f"exactly {c.teams} teams of one player each"))
        reqs.append(Requirement(id="ffa_no_allies", text="no team is allied with another"))
    elif arch == "teams" and "teams" in keys:
        reqs.append(Requirement(id="team_count", text=f"two alliances of {c.team_size} teams each"))
    if c.hold_time and arch == "capture":
        reqs.append(Requirement(id="hold_zone", text=f"holding the zone for {clock(c.hold_time)} without a break "
                                                     "wins, and a shorter hold does not"))
    if c.deadline:
        reqs.append(Requirement(id="deadline", text=f"the goal must be reached by {clock(c.deadline)}; missing it "
                                                    "loses"))
    if arch == "production" and c.wave_times:
        reqs.append(Requirement(id="enemy_attack", text="the enemy attacks at "
                                + ", ".join(clock(t) for t in c.wave_times) + " during the production race, "
                                "and the race is won only once the last attack is beaten"))
    if c.raid_target_type and (c.raids or arch == "raids"):
        reqs.append(Requirement(id="raid_target", text=f"raids go for your "
                                                       f"{c.raid_target_type.replace('_', ' ')}s"))
    if c.safe_zone and arch == "ffa":
        every = c.zone_interval or ZONE_EVERY
        reqs.append(Requirement(id="safe_zone", text=f"a safe zone shrinks every {clock(every)} and every unit "
                                                     "outside it loses hp"))
    if c.theft and c.wave_interval and (c.raids or arch == "raids"):
        reqs.append(Requirement(id="theft", text=f"each raid steals up to {c.theft:g} metal from you and "
                                                 "carries it off to the raiders"))
    if (c.raids or arch == "raids") and ("air" in keys or "ground" in keys):
        domain = "aircraft" if c.air and not c.ground else "ground units" if not c.air else "aircraft and ground units"
        reqs.append(Requirement(id="raid_domain", text=f"the raiders are {domain}"))
    if c.protect_unit:
        reqs.append(Requirement(id="protect_unit", text=f"losing your {c.protect_unit.replace('_', ' ')} loses the "
                                                        "game"))
    settings = []
    if "fog" in keys:
        settings.append(f"fog of war {'on' if c.fog else 'off'}")
    if "production_switch" in keys and arch not in ("teams", "production"):
        settings.append(f"production {'on' if c.production else 'off'}")
    if "map" in keys and c.map_hint:
        settings.append(f"the {c.map_hint.replace('_', ' ')} map")
    if settings:
        reqs.append(Requirement(id="settings", text="the level is set as asked: " + ", ".join(settings),
                                testable=False))
    if c.difficulty:
        reqs.append(Requirement(id="difficulty", testable=False, text=(
            f"the scenario is {c.difficulty}: the validity certificate's ladder puts it in the {c.difficulty} band "
            "(checked by the level gate's difficulty criterion, not by a trace)")))
    return reqs


MICRO_DEFAULT_SQUAD, MICRO_DEFAULT_ENEMY = {"rocket_bot": 5}, {"assault_bot": 8}


MAX_COUNTERATTACKS = 8


def _counterattack_schedule(c: Concepts) -> tuple[list[str], list[float]]:
    """A held zone's counterattacks said by their sides and interval ("every 40 seconds from the south", "from
    the north and the east, one every ninety seconds"): one each interval while half an interval is left
    before the deadline, the named sides in turn."""
    every = c.wave_interval
    count = min(MAX_COUNTERATTACKS, max(0, int(((c.deadline or c.time_limit) - every / 2) // every)))
    return [c.directions[k % len(c.directions)] for k in range(count)], [every * (k + 1) for k in range(count)]


def _micro_defaults(c: Concepts) -> list[str]:
    """A skirmish's armies and deadline when the request leaves them out (the time limit is the deadline)."""
    said = []
    if not c.squad or not c.enemy_force:
        c.squad, c.enemy_force = dict(MICRO_DEFAULT_SQUAD), dict(MICRO_DEFAULT_ENEMY)
        said.append(f"no armies named: your {_force_text(c.squad)} against {_force_text(c.enemy_force)}")
    if not c.deadline and not c.time_limit:
        said.append("no deadline given: 3:00")
    c.deadline = c.deadline or c.time_limit or DEFAULT_TIME_LIMIT["micro"]
    c.time_limit = c.deadline
    c.production = False
    c.wave_times, c.wave_interval = [], None
    if c.max_losses is not None and c.max_losses >= sum(c.squad.values()):
        c.max_losses = None
    return said


_LEFT = {"units": "with units left", "commanders": "with a living commander"}
_OUT = {"units": "your team is wiped out", "commanders": "your commander dies"}
_OUT_WHEN = {"units": "every unit of it is destroyed", "commanders": "its commander dies"}
_ALLIANCE_OUT = {"units": "every unit of its teams destroyed", "commanders": "every commander of its teams dead"}


def _side_armies_text(c: Concepts) -> str:
    if not c.rival_army:
        return f"each team starts with {_force_text(c.side_army)}"
    ours = f"each team of your alliance starts with {_force_text(c.side_army)}; " if c.side_army else ""
    return ours + f"each enemy team starts with {_force_text(c.rival_army)}"


def _force_text(force: dict[str, int]) -> str:
    return " and ".join(f"{n} {t.replace('_', ' ')}{'s' if n > 1 else ''}" for t, n in force.items())


def _resource_text(c: Concepts) -> str:
    """ "an income of 20 metal per second" / "a stockpile of 1500 metal" """
    amount = f"{c.resource_amount:g} {c.resource_kind or 'metal'}"
    return f"an income of {amount} per second" if c.resource_income else f"a stockpile of {amount}"


def _escort_text(c: Concepts) -> str:
    name = (c.escort_unit or "commander").replace("_", " ")
    return f"a convoy of {c.escort_count} {name}s" if c.escort_count > 1 else f"your {name}"


MAX_TEAM_SIZE = 3       # a side of the team-battle map has three start corners
SCOUTING_TIME = 120.0   # seconds the player gets to scout before the first attack
RAID_FIRST_AT = 120.0   # the first raid comes after one interval, at most after this long
MIN_WAVE_STEP = 25.0    # seconds between two scheduled waves at the closest: the staggered evidence needs 20 s of quiet
WAVE_TAIL = 20.0        # seconds the last scheduled wave comes before the end


def _bomb_fragile(c: Concepts) -> bool:
    """Air raids on objectives that one or two bomber hits destroy."""
    from genesis.offline.gdd_writer import _bombs_to_destroy

    target = c.objective_type or c.raid_target_type or "metal_storage"
    return c.air and target in load_catalog().units and _bombs_to_destroy(target) <= 2


GROWING_FIRST, GROWING_GAP, MAX_GROWING = 45, 90, 10   # growing waves no one counted: first, widest gap, most


def _default_waves(c: Concepts) -> int:
    """How many attacks a request that gives no count gets: enough to fill the game."""
    # "the first at 0:45, and each minute after that another": the stated first time, then the interval
    first_then_every = bool(c.wave_interval) and len(c.wave_times) <= 1
    if c.escalating and not first_then_every:
        # "each wave bigger than the last" needs a few waves, whatever first time the request states, and keeps
        # coming over the whole game: one every GROWING_GAP at most, the last a minute before the end
        first = c.wave_times[0] if c.wave_times else GROWING_FIRST
        spread = 1 + int(((c.time_limit or 300) - 60 - first) // GROWING_GAP)
        return max(3, len(c.wave_times), min(MAX_GROWING, spread))
    if c.wave_times and not first_then_every:
        return len(c.wave_times)
    if c.wave_interval:
        # the last one due before the end, even at its latest (a wave due as the game ends never comes)
        first = c.wave_times[0] if c.wave_times else min(c.wave_interval, RAID_FIRST_AT)
        latest = variation.interval_jitter(c.wave_interval, True)     # the request states the interval
        return max(1, int((c.time_limit - first - latest - 1) // c.wave_interval) + 1)
    if c.attack_window and not c.wave_times:
        return 1     # "the enemy will come some time between 2:00 and 3:30": one attack, its moment drawn
    if c.scouting:
        return max(1, int((c.time_limit - SCOUTING_TIME - 30) // 120) + 1)
    # one wave per front at least, and a wave every ~75 s of a long game
    return max(c.fronts or 1, min(8, int((c.time_limit - 60) // 75) + 1))


def _schedule(c: Concepts) -> list[float]:
    """Attack times for `c.waves` waves spread over the game (after a scouting phase when scouting)."""
    # an attack window the request gives starts the schedule (the seed draws how late in it the attack comes)
    if c.attack_window:
        start = c.attack_window[0]
    else:
        start = SCOUTING_TIME if c.scouting else min(30.0, c.time_limit * 0.15)
    last = c.time_limit - WAVE_TAIL    # a wave needs time to reach the base before the game ends
    step = 120.0 if c.scouting else max(MIN_WAVE_STEP, min(120.0, (c.time_limit - 60) / max(1, c.waves),
                                                            (last - start) / max(1, c.waves - 1)))
    times = [round(start + i * step) for i in range(c.waves)]
    return [t for t in times if t <= last] or times[:1]


def reading_title(query: str) -> str:
    """The whole request as the title: a cut one ("…") names a different scenario in every listing."""
    title = " ".join(query.split())
    return title[:1].upper() + title[1:]


def _plural(types: list[str]) -> str:
    return ", ".join(t.replace("_", " ") + "s" for t in types)


def _wave_types_kept(clause: ClauseAccount, c: Concepts, reading: Reading) -> ClauseAccount:
    """An honoured clause that names the enemy's units is honoured only when the waves are built of them: the
    waves are one mix for every attack (the player's units and the targets named are not the enemy's)."""
    from genesis.offline.concepts import attack_unit_names, roster_names
    from genesis.offline.gdd_writer import wave_types

    if clause.status != "honoured":
        return clause
    built = wave_types(c)
    at = reading.offsets
    inside = [n for i, n in attack_unit_names(reading) if clause.start <= at[i] < clause.end]
    missing = list(dict.fromkeys(n for n in inside if roster_names()[n] not in built))
    # a clause naming its waves' units is not built when every wave also brings the units another clause named
    named = {roster_names()[n] for _, n in attack_unit_names(reading)}
    others = named - {roster_names()[n] for n in inside}
    mixed = sorted(others & built) if inside else []
    # "bomber waves": the request names what attacks, so units it never names are not what it asked
    unasked = sorted(built - named - {"commander"}) if inside else []
    if not missing and not mixed and not unasked:
        return clause
    mix = _plural(sorted(built))
    why = (f"the {', '.join(missing)} named here are not built" if missing else
           f"these attacks also bring the {_plural(mixed)} named elsewhere" if mixed else
           f"these attacks also bring {_plural(unasked)}, which the request does not name")
    return clause.model_copy(update={
        "status": "partial", "built": f"the attacks as read, each made of {mix}",
        "why": f"every wave is one mix ({mix}): {why}"})
