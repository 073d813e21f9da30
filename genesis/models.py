"""Typed documents passed between the pipeline's stages and agents."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from engine.schema.expect import Expectation
from engine.agent.policies import STRATEGIES
from engine.agent.scripted import Probe
from engine.maps import list_maps
from engine.schema.level import Condition, Controller, LevelConfig, MapRef, RankByScore, StartUnit
from engine.schema.roles import parse_roles
from genesis.difficulty import EASIER_WHEN_LARGER, MAX_FACTOR, MAX_TRIALS, MIN_FACTOR, REBALANCE_FACTOR
from genesis.rule_recipe import RuleRecipe

# the kinds of unit a brief names; the offline reader's vocabulary maps its phrases onto these
UNIT_KINDS = ("artillery", "air", "tank", "bot", "heavy", "raider", "commander")

Competency = Literal[
    "resource_management",
    "spatial_temporal_reasoning",
    "opponent_modelling",
    "collaboration",
    "adversarial_planning",
]
Strategy = Literal[STRATEGIES]
RankMetric = RankByScore.model_fields["metric"].annotation
Direction = Literal["n", "ne", "e", "se", "s", "sw", "w", "nw", "left", "right"]

# What each archetype means, for the model that picks one.
ARCHETYPES = {
    "defense": "the player holds out against enemy attacks, protecting objectives",
    "production": "the player builds an economy and produces a unit composition",
    "ffa": "free-for-all: every team against every other, ranked or last survivor",
    "teams": "allied teams against allied teams (e.g. 2v2)",
    "siege": "the player breaks into a fortified position and destroys a target",
    "capture": "the player takes and holds a zone or point",
    "raids": "small enemy parties harass the player's economy",
    "escort": "the player brings a unit (a VIP, a convoy) to a destination alive, past ambushes on the way",
    "recon": "the player scouts under fog of war to locate hidden enemy targets in time",
    "micro": "a small player squad against an enemy force, no base building: destroy every enemy unit",
    "resources": "the player grows an economy to stockpile a resource (or reach an income of it) by a deadline",
    "other": "none of these (e.g. a rescue or a theft)",
}


class Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


PROBE_ON = r"^probe:[A-Za-z0-9_-]{1,40}$"   # a requirement evidenced on one of the GDD's exploit probes


class Requirement(Doc):
    """One checkable demand of the request, e.g. "attacks come from two fronts"."""

    id: str = Field(description="short snake_case id, unique in the brief")
    text: str = Field(description="the demand in one sentence, as a player would check it")
    testable: bool = Field(True, description="true when a validation run's trace or state can show it; false only "
                                             "for what no trace can show (a switch such as fog of war or "
                                             "production, or the map: the shipped level is checked for those)")
    on: Literal["reference", "idle", "rush"] | Annotated[str, StringConstraints(pattern=PROBE_ON)] = Field(
        "reference", description=(
            "which validation runs carry the evidence: reference = team 0 played by the scripted reference strategy; "
            "idle = team 0 gives no orders; rush = team 0 sends every combat unit at the nearest enemy from the "
            "start (a careless player: for a loss neither the reference nor idle suffers, such as the army wiped "
            "out or a unit lost in the fight); probe:<name> = the GDD's `variation.probes` entry of that name, its "
            "orders played blind (the plan that suffers a loss no policy above takes, e.g. running the target to "
            "the map edge); each is played on 2 seeds. At the brief stage no probe exists yet: name the one the GDD "
            "is to script (the GDD writes `variation.probes` with that name, or changes `on`)"))
    expect: list[Expectation] = Field(default_factory=list,
                                      description="expectations the validation runs of `on` must satisfy")


class Concepts(Doc):
    """What the request asks for, in the offline backend's vocabulary; "other" when no archetype fits."""

    archetype: Literal[tuple(ARCHETYPES)] = Field("defense", description="the scenario family: " + "; ".join(
        f"{name}: {meaning}" for name, meaning in ARCHETYPES.items()))
    fronts: int | None = Field(None, description="number of distinct attack directions, if the request names them")
    objectives: int | None = Field(None, description="number of things the player must protect or take")
    raid_size: int | None = Field(None, ge=1, description="units in each raid, when the request counts them (\"a pair "
                                                          "of bombers every 75 s\")")
    guard_turrets: dict[str, int] = Field(default_factory=dict, description="siege: turret type from the roster -> "
                                                                           "count guarding the target, when the request "
                                                                           "counts them (\"guarded by 8 light turrets\")")
    garrison: dict[str, int] = Field(default_factory=dict, description="siege: enemy mobile unit type from the "
                                                                      "roster -> count holding the base, when the "
                                                                      "request counts them (\"six assault bots guard "
                                                                      "it\")")
    keep_objectives: int | None = Field(None, ge=1, description="the player loses once fewer than this many "
                                                                "objectives are left (\"keep at least 2 of the 4\"); "
                                                                "None: losing any one loses")
    objective_type: str | None = Field(None, description="unit type from the roster of the objectives (e.g. a "
                                                         "storage "
                                                          "to protect)")
    waves: int | None = Field(None, description="number of enemy attack waves (timed or triggered attacks count as "
                                                "waves)")
    wave_times: list[float] = Field(default_factory=list, description="game seconds at which waves arrive, if the "
                                                                      "request fixes them")
    wave_interval: float | None = Field(None, description="seconds between waves, if regular")
    wave_sizes: list[int] = Field(default_factory=list, max_length=12, description="units in each wave, in order, "
                                  "when the request counts them (\"waves of 4, 6 and then 9\")")
    staggered: bool = Field(False, description="fronts are attacked at different times")
    escalating: bool = Field(False, description="each wave is larger than the last")
    random_side: bool = Field(False, description="attacks come from a side chosen at random")
    random_timing: bool = Field(False, description="attacks come at unpredictable times")
    attack_window: list[float] = Field(default_factory=list, max_length=2,
                                       description="[earliest, latest] game seconds of an attack the request "
                                                   "leaves to chance (\"sometime between minute 1 and 3\")")
    air: bool = Field(False, description="the request involves aircraft")
    ground: bool = Field(True, description="the request involves ground units")
    unit_kinds: list[str] = Field(default_factory=list, description="kinds of units the request names, from: "
                                  + ", ".join(UNIT_KINDS))
    wave_units: list[str] = Field(default_factory=list, description="the roster unit types (ids) the request says "
                                  "the enemy's attacks are made of, if it names them")
    teams: int = Field(2, description="number of teams, the player's included")
    team_size: int = Field(1, description="teams per side (2 for a 2v2)")
    production: bool | None = Field(None, description="whether factories and builders may produce (null: the request "
                                                      "does not say)")
    fog: bool | None = Field(None, description="whether fog of war is on (null: the request does not say)")
    time_limit: float | None = Field(None, description="game seconds the scenario lasts at most")
    target_composition: dict[str, int] = Field(default_factory=dict, description="production goals: unit type from the roster -> count the player must own")
    ranking: RankMetric | None = Field(None, description="what teams are ranked by at the end, when the request "
                                                         "ranks them")
    map_hint: str | None = Field(None, description="built-in map the request points at, one of: " + ", ".join(list_maps()))
    scouting: bool = Field(False, description="the player must scout to learn where attacks come from")
    raids: bool = Field(False, description="small enemy parties harass economy targets")
    unopposed: bool = Field(False, description="the request says no enemy attacks the player (a race against the clock)")
    allied_bases: int | None = Field(None, description="number of allied (AI) bases fighting with the player")
    directions: list[Direction] = Field(default_factory=list, description="the attack sides the request names, in "
                                        "its order: compass points, or left / right (flanks as the player faces "
                                        "the enemy)")
    direction_times: list[float] = Field(default_factory=list, description="game seconds of the attack from each "
                                         "named direction, aligned with `directions`, when the request times them")
    growth_factor: float | None = Field(None, description="each wave is this many times the size of the one before "
                                                          "(2 for doubling), when the request says so")
    probe_then_main: bool = Field(False, description="a small probing attack comes first, then the main attack")
    main_factor: float | None = Field(None, description="the main attack is this many times the size of the probe, "
                                                        "when the request says so")
    hold_time: float | None = Field(None, description="seconds the player must hold the zone without a break")
    reinforcements: list[float] = Field(default_factory=list, max_length=8, description="game seconds at which "
                                        "reinforcements arrive for the player, when the request times them")
    deadline: float | None = Field(None, description="game second by which the player must reach the goal "
                                                     "(\"before minute 6\", \"within 6 minutes\")")
    safe_zone: bool = Field(False, description="a safe zone shrinks over the game and units outside it lose hp")
    zone_interval: float | None = Field(None, description="seconds between two shrinks of the safe zone, when the "
                                                          "request says")
    theft: float | None = Field(None, description="metal each enemy raid steals from the player and carries off, "
                                                  "when the request says raids steal")
    raid_target_type: str | None = Field(None, description="unit type from the roster that enemy raids go for "
                                                           "(a building class such as metal_extractor)")
    difficulty: Literal["easy", "medium", "hard"] | None = Field(None, description=(
        "the difficulty the request asks for (easy, warm-up: easy; medium, moderate: medium; hard, brutal: hard), "
        "as a band of the validity certificate's ladder; null when it does not say"))
    protect_unit: str | None = Field(None, description="unit type from the roster of a unit the player must keep "
                                                       "alive (e.g. commander)")
    protect_all: bool = Field(False, description="the game is lost only when every one of those units is lost "
                                                 "(\"losing both light bots loses\"), not the first")
    escort_unit: str | None = Field(None, description="escort: unit type from the roster of the unit the player must "
                                                      "bring to the destination (commander when the request names none)")
    escort_count: int = Field(1, ge=1, le=4, description="escort: how many of them travel together (a convoy)")
    escort_from: Direction | None = Field(None, description="escort: the compass side or corner the unit starts at, when "
                                                            "the request names it")
    escort_to: Direction | None = Field(None, description="escort: the compass side or corner of the destination, when "
                                                          "the request names it (else the far side of the map)")
    ambush: bool = Field(False, description="escort: the request asks for ambushes or patrols along the route")
    locate_type: str | None = Field(None, description="recon: unit type from the roster of the enemy targets to locate")
    locate_count: int | None = Field(None, ge=1, le=8, description="recon: how many targets there are to locate")
    player_start: dict[str, int] = Field(default_factory=dict, description="start units the request gives the player: "
                                         "unit type from the roster -> count (\"you start with 6 turrets\")")
    player_metal: float | None = Field(None, ge=0, description="metal the request gives the player at the start")
    squad: dict[str, int] = Field(default_factory=dict, description="micro: the player's squad, unit type -> count")
    enemy_force: dict[str, int] = Field(default_factory=dict, description="micro: the enemy force, unit type -> count")
    max_losses: int | None = Field(None, ge=0, description="micro: losing more of the squad than this loses")
    kiting: bool = Field(False, description="micro: the squad outruns and outranges the enemy (a kiting test)")
    resource_kind: Literal["metal", "energy"] | None = Field(None, description="resources: the resource to gather")
    resource_amount: float | None = Field(None, gt=0, description="resources: the stockpile to reach, or with "
                                                                  "resource_income the income per second")
    resource_income: bool = Field(False, description="resources: the goal is an income per second, not a stockpile")
    resource_keep: str | None = Field(None, description="resources: unit type from the roster the player must not "
                                                        "lose one of (\"without losing an extractor\")")
    elimination: Literal["units", "commanders"] | None = Field(None, description=(
        "free-for-all and team battles: the game is decided by elimination, not a ranking: `units` when a side is "
        "out once every unit of it is destroyed (\"wipe out both enemy teams\"), `commanders` when a side is out "
        "once its commander(s) die (\"the last team with a living commander wins\"); null when the request says "
        "neither"))
    side_army: dict[str, int] = Field(default_factory=dict, description=(
        "free-for-all and team battles: each team's start army as the request states it, unit type from the roster "
        "-> count (the player's alliance's when `rival_army` is set too)"))
    rival_army: dict[str, int] = Field(default_factory=dict, description=(
        "team battles: each enemy team's start army, when the request states it apart from the player's side's"))


class ClauseAccount(Doc):
    """How one clause of the request is treated: every word of the request belongs to one clause."""

    text: str = Field(description="the clause, verbatim from the request")
    start: int = Field(ge=0, description="character offset of the clause in the request")
    end: int = Field(ge=0, description="character offset just past the clause")
    status: Literal["honoured", "partial", "assumed", "not_honoured"] = Field(
        description="honoured: built and checked by the requirements listed; partial: part built and checked by "
                    "the requirements listed, the rest not built (say which in `built` and `why`); assumed: filled "
                    "with a stated default; not_honoured: cannot be built (say why)")
    requirement_ids: list[str] = Field(default_factory=list, description="ids of the brief requirements that "
                                       "check this clause (at least one when honoured or partial)")
    built: str = Field("", description="for partial: the part of the clause that was built")
    why: str = Field("", description="for assumed: the default and why; for partial: the part not built and why; "
                                     "for not_honoured: why it cannot be built")


class Clarification(Doc):
    question: str = Field(description="a question to the user")
    answer: str | None = Field(None, description="the user's answer (null if not answered)")


class Brief(Doc):
    query: str = Field(description="the request, verbatim")
    title: str = Field(description="short scenario title")
    competency: Competency = Field(description="the strategic competency the scenario measures")
    summary: str = Field(description="the scenario in two or three sentences")
    composition: str = Field(description="who fights with what")
    enemy_behaviour: list[str] = Field(description="what the enemy does and when, one item per behaviour")
    win_conditions: list[str] = Field(description="how the player (team 0) wins, each concrete and checkable")
    loss_conditions: list[str] = Field(description="how the player (team 0) loses, each concrete and checkable")
    requirements: list[Requirement] = Field(description="the request's checkable demands (the GDD adds their "
                                                        "expectations)")
    concepts: Concepts = Field(description="the request's concepts, used to find similar verified designs in the "
                                           "knowledge base")
    assumptions: list[str] = Field(default_factory=list, description="every assumption made to fill gaps in the "
                                                                     "request")
    unsupported: list[str] = Field(default_factory=list, description="parts of the request that cannot be honoured, "
                                                                     "and why")
    clarifications: list[Clarification] = Field(default_factory=list, description="questions asked to the user and their answers")
    clauses: list[ClauseAccount] = Field(default_factory=list, description="the request split into clauses, in "
                                         "order and covering all of it, each honoured, partial, assumed or not honoured")
    is_game: bool = Field(True, description="false when the request is not an RTS game request")
    refusal: str | None = Field(None, description="why no scenario can be made, when is_game is false")


class UnitPlacement(Doc):
    """Start units of a GDD team; the level's StartUnit (`at` a spawn name, or x and y)."""

    type: str = Field(description="unit type from the roster")
    count: int = Field(1, ge=1, le=500, description="units in the group: the first at the point, the rest on rings "
                                                    "around it (see spread)")
    at: str | None = Field(None, description="name of a spawn point of the GDD's map, instead of x/y")
    x: float | None = Field(None, description="tile x of the group's point (with y; instead of `at`)")
    y: float | None = Field(None, description="tile y of the group's point (with x; instead of `at`)")
    spread: float = Field(2.0, ge=0, description=StartUnit.model_fields["spread"].description)
    tag: str | None = Field(None, description="label that conditions, rules, strategies and expectations select on")
    health: float = Field(1.0, gt=0, le=1, description=StartUnit.model_fields["health"].description)


class TeamPlan(Doc):
    id: int = Field(description="team id; 0 is the player")
    name: str = Field(description="display name")
    role: Literal["player", "enemy", "ally", "neutral"] = Field(description=(
        "player (team 0, the agent under test), enemy, ally of the player, or neutral: a side no one fights "
        "(civilians, neutral buildings; controller ai or none, no allies): only splash, hazards and rules hurt its "
        "units, and it never wins, loses or keeps a game going"))
    controller: Controller = Field(description="who gives this team's units orders (see Controllers)")
    allies: list[int] = Field(default_factory=list, description="ids of allied teams (alliances are symmetric: "
                                                                "listing the ally on one of the two teams is enough)")
    metal: float = Field(0, description="starting metal")
    energy: float = Field(0, description="starting energy")
    units: list[UnitPlacement] = Field(default_factory=list, description="start units, placed at t=0")
    color: str | None = Field(None, pattern=r"^#[0-9a-fA-F]{6}$", description=(
        "#rrggbb the team is drawn in, when the request names its colour (a colour too close to the terrain's is "
        "drawn in a paler shade of itself); null: the default palette"))


# Rule ids name files in the scenario folder and level rules: the engine's RuleRef pattern, so a
# model cannot write outside the folder (e.g. id "../../x").
RULE_ID = Field(pattern=r"^[a-z][a-z0-9_]*$", description="snake_case rule id")


class RuleComponent(Doc):
    id: str = RULE_ID
    purpose: str = Field("", description="what the rule does, with which params and which rule_log events it writes "
                                         "(a new rule is written from this; may be empty for a library rule)")
    kind: Literal["spawn", "termination", "setup", "economy", "objective", "effect"] = Field(description="spawn: creates or orders units (waves, ambushes, enemy behaviour); termination: ends the game with win()/lose(); objective: tracks a goal and may call win()/lose(); setup: places or marks things at the start; economy: grants or takes resources; effect: changes units over time (damage or heal areas, auras, attrition, sight, fire, cloak, side changes)")
    library_rule: str | None = Field(None, description="id of a verified library rule to reuse, if any")
    params: dict[str, Any] = Field(default_factory=dict, description="param name -> value passed to the rule (a "
                                                                     "library rule: only the params it declares)")
    requirement_ids: list[str] = Field(default_factory=list, description="ids of the requirements this component "
                                                                         "serves")
    recipe: RuleRecipe | None = Field(None, description="optional: the rule as typed triggers and actions; the "
                                                        "offline developer composes its Lua from this")

    @model_validator(mode="after")
    def _new_rule_says_what_it_does(self) -> "RuleComponent":
        if not self.library_rule and not self.purpose.strip():
            raise ValueError(f"rule component {self.id!r}: a new rule (no library_rule) needs a purpose: the "
                             "developer writes it from that")
        return self


class SeedVariation(Doc):
    """One thing the seed changes from game to game, so an agent must observe it to win."""

    what: str = Field(max_length=300, description="what changes per seed, e.g. 'which front each wave hits and in "
                                                  "what order', 'the wave times within +-20 s'")
    how: str = Field(max_length=200, description="the mechanism that draws it from the seed: a rule param "
                                                 "('<component id>.<param>', e.g. 'waves.shuffle', 'raids.jitter'), a "
                                                 "rule's own random()/random_int() draw ('<component id>: random'), "
                                                 "'switches.spawn_jitter' or '<team>.choose_target'")
    observe: str = Field(max_length=300, description="what the agent must watch for, and why a fixed plan fails")


class Variation(Doc):
    """What the seed varies (the certificate plays every seed and rejects a level a blind script wins)."""

    varies: list[SeedVariation] = Field(default_factory=list, max_length=8, description=(
        "every seeded variation of the design; empty only for a fixed drill"))
    fixed_by: str | None = Field(None, max_length=300, description=(
        "only when the request itself fixes every event (times, sides, targets): the clause that does, verbatim "
        "from the request; the certificate then says 'fixed drill: <clause>'. Null otherwise"))
    probes: list[Probe] = Field(default_factory=list, max_length=4, description=(
        "cheap exploit plans of this design played blind on every seed (e.g. send everything to one storage, "
        "route the VIP around the middle, stand still inside the zone); none may win every seed"))
    knob: str | None = Field(None, max_length=120, description=(
        "the one balance knob, as '<component id>.<param>' (a number, or a map or list of numbers: enemy strength, "
        "wave size or interval, a deadline) that the request leaves open; or null. When the reference loses a "
        "validation seed (easier), or a cheap policy wins every seed, or the only requirements that fail are on "
        "careless runs (idle, rush, a probe: the loss they should suffer does not come; harder, until those hold), "
        "or the level misses an asked difficulty, the pipeline "
        f"scales this param (x{MIN_FACTOR:g} to x{MAX_FACTOR:g} for an asked difficulty, x{1 / REBALANCE_FACTOR:g} to "
        f"x{REBALANCE_FACTOR:g} otherwise; up to {MAX_TRIALS} trials, each certified on every seed) before the level "
        "gate judges, and ships the first value that certifies with every requirement holding, so the agent's "
        "description must not state the knob's exact value; a param with "
        f"{', '.join(repr(w) for w in EASIER_WHEN_LARGER)} in its name is taken as easier when larger, any other as "
        "harder, unless `knob_harder` says which way makes the player's task harder. A share capped at 1 makes a "
        "poor knob (it cannot grow); so does one only the reference meets (a heal only its units use): the search "
        "moves the reference and the careless policies together, so the knob must weigh on both (enemy strength "
        "does)"))
    knob_harder: Literal["larger", "smaller"] | None = Field(None, description=(
        "which way of the knob makes the player's task harder, when its name misleads (e.g. 'escape_time', the "
        "time the enemy's runners get to reach the edge: more time is harder for the player, 'larger'); null: "
        "read from its name"))


class ClauseChange(Doc):
    """A clause of the brief this design builds less of than the brief planned, or builds in full where the brief
    planned less (and a requirement of this design shows it)."""

    clause: str = Field(max_length=600, description="the clause's text, verbatim as in the brief's `clauses`")
    status: Literal["honoured", "partial", "not_honoured"] = Field(
        description="honoured: this design builds all of it and `requirement_ids` show it; partial: part of it is "
                    "built; not_honoured: none")
    built: str = Field("", max_length=400, description="for partial: the part this design builds")
    why: str = Field(max_length=600, description="what this design does not build, and why (for honoured: how it is "
                                                 "now built)")
    requirement_ids: list[str] = Field(default_factory=list, max_length=8, description=(
        "for honoured: ids of this GDD's testable requirements that show the clause; the clause is on record as "
        "honoured only when every one of them is verified by the validation runs"))


class GDD(Doc):
    title: str = Field(description="scenario title")
    competency: Competency = Field(description="the strategic competency the scenario measures")
    summary: str = Field(description="the design in a few sentences")
    agent_description: str = Field(description="what the agent is told: objective, win and loss conditions, time "
                                               "limit, key constraints; no hidden enemy scripts")
    map: MapRef = Field(description="one built-in map {name} or a procedural map {generate}")
    teams: list[TeamPlan] = Field(description="every team: the player (team 0) first")
    rule_components: list[RuleComponent] = Field(description="the Lua rules the developer reuses or writes")
    fog_of_war: bool = Field(description="true: each team sees only what its units see (the reference strategy too)")
    production: bool = Field(description="false: nobody can produce or build")
    time_limit: float = Field(description="game seconds after which the run ends (ended_by time_limit); rule timers "
                                          "due then run first, then the conditions; a game nothing decides by then "
                                          "has no winner")
    conditions: list[Condition] = Field(default_factory=list, description="declarative engine win/loss conditions")
    requirements: list[Requirement] = Field(description="every brief requirement, with expectations that the "
                                                        "validation runs must satisfy")
    win_paths: list[str] = Field(description="how the player wins, each a concrete checkable condition")
    loss_paths: list[str] = Field(description="how the player loses, each a concrete checkable condition")
    reference_strategy: Strategy = Field(description="the scripted strategy that plays team 0 in validation (see "
                                                     "Reference strategies); it must win every seed")
    strategy_params: dict[str, Any] = Field(default_factory=dict, description="the strategy's params (see Reference "
                                                                              "strategies) and optional `roles` (see "
                                                                              "Unit roles); distances in tiles, "
                                                                              "times in game seconds")
    variation: Variation = Field(default_factory=Variation, description=(
        "what the seed varies so that the level plays a different game on every seed, what the agent must observe, "
        "and the exploit probes of this design (see Validity certificate)"))
    assumptions: list[str] = Field(default_factory=list, description=(
        "the assumptions this design rests on, in full: the brief's, restated with this design's own values "
        "(map, positions, time limit, armies) where it departs from them, and any it adds; the scenario's "
        "records show this list instead of the brief's"))
    clause_changes: list[ClauseChange] = Field(default_factory=list, max_length=16, description=(
        "every clause of the brief this design builds less of than the brief's status for it says (e.g. a hazard "
        "the request puts on every unit applied to the player's only): the clause verbatim, its new status, what "
        "is built and why; and every clause the brief marks partial or not honoured that this design builds in "
        "full, with the testable requirements that show it (status honoured). The scenario's record of the "
        "request's clauses takes these statuses. Empty when the design builds every clause as the brief planned"))

    @model_validator(mode="after")
    def _roles_valid(self) -> GDD:
        try:
            parse_roles(self.strategy_params.get("roles"))
        except ValueError as exc:
            raise ValueError(f"strategy_params.roles: {exc}") from exc
        return self


class RuleTest(Doc):
    """One rule test: the rule under test runs in `level` (which lists no rules: the harness adds it)."""

    name: str = Field(description="short test name")
    level: LevelConfig = Field(description="a complete level config without `rules`: the harness adds the rule under "
                                           "test")
    params: dict[str, Any] = Field(default_factory=dict, description="the rule's params for this test")
    seed: int = Field(0, description="simulation seed")
    until: float | None = Field(None, gt=0, description="stop after this many game seconds (default: the level's "
                                                        "end)")
    policies: dict[int, Literal["idle", "random", "reference"]] | None = Field(
        None, description="policy per agent-controlled team, keyed by team id as a JSON object key (a string): "
                          "{\"0\": \"reference\"}; \"reference\" plays the test level's metadata.reference; agent "
                          "teams without an entry stay idle")
    expect: list[Expectation] = Field(min_length=1, description="what the run must show (trace events, outcome, "
                                                                "engine state)")

    def file_form(self) -> dict[str, Any]:
        """The test as test.yaml holds it: no null fields, and a level without `rules`."""
        return self.model_dump(mode="json", exclude_none=True, exclude={"level": {"rules"}})

    @model_validator(mode="after")
    def _no_rules(self) -> RuleTest:
        if self.level.rules:
            raise ValueError("level: must not list `rules`; the harness inserts the rule under test")
        return self


class ParamDecl(Doc):
    type: Literal["int", "float", "bool", "string", "list", "table"] = Field(description="the Lua value type the script expects")
    default: Any = Field(None, description="value used when the level does not pass the param")
    description: str = Field(description="what the param means, with its unit (tiles, seconds)")


class RuleMetaDraft(Doc):
    title: str = Field(description="short rule title")
    description: str = Field(description="what the rule does, its params and the rule_log events it writes")
    params: dict[str, ParamDecl] = Field(default_factory=dict, description="every param() the script reads")
    concepts: list[str] = Field(default_factory=list, description="keywords for finding the rule in the knowledge "
                                                                  "base")


class RuleDraft(Doc):
    """The developer's answer for one rule component: reuse a library rule by id, or write a new one."""

    id: str = RULE_ID
    reuse: str | None = Field(None, description="id of the verified library rule to reuse unchanged; its source "
                                                "and tests carry over (give no source, tests or meta)")
    params: dict[str, Any] = Field(default_factory=dict, description=(
        "the params the level passes to this rule: the component's params as the GDD gives them (a new rule "
        "declares each in meta.params; its tests set their own in each test's `params`)"))
    source: str | None = Field(None, description="Lua 5.4 source of a new rule")
    tests: list[RuleTest] = Field(default_factory=list, description="tests of a new rule")
    meta: RuleMetaDraft | None = Field(None, description="metadata of a new rule")
    keep: bool = Field(False, description="true: keep the previously verified script shown for this component "
                                          "unchanged, with its tests (give only id, keep and params)")
    write_new: bool = Field(False, description="true: the library rule offered cannot do what the component needs "
                                               "(give only id): you are then asked for a new rule, with the rule API")

    @model_validator(mode="before")
    @classmethod
    def _one_rule_of_a_list(cls, data: Any) -> Any:
        """A one-rule answer in the shape of the several-rules call ({"rules": [<the draft>]}) is that draft:
        a writer who answered the first call in that shape is not rejected for keeping it."""
        if isinstance(data, dict) and set(data) == {"rules"} and isinstance(data["rules"], list) \
                and len(data["rules"]) == 1:
            return data["rules"][0]
        return data

    @model_validator(mode="after")
    def _reuse_or_new(self) -> RuleDraft:
        if self.write_new:
            extra = [k for k in ("reuse", "source", "meta") if getattr(self, k)] + \
                [k for k in ("tests", "keep") if getattr(self, k)]
            if extra:
                raise ValueError(f"write_new takes only id; drop {', '.join(extra)}")
        elif self.keep:
            extra = [k for k in ("reuse", "source", "meta") if getattr(self, k) is not None] + (["tests"] if self.tests else [])
            if extra:
                raise ValueError(f"a kept rule takes only id, keep and params; drop {', '.join(extra)}")
        elif self.reuse is not None:
            extra = [k for k in ("source", "meta") if getattr(self, k) is not None] + (["tests"] if self.tests else [])
            if extra:
                raise ValueError(f"a reused rule takes only id, reuse and params; drop {', '.join(extra)}")
        else:
            missing = [k for k in ("source", "meta") if getattr(self, k) is None] + ([] if self.tests else ["tests"])
            if missing:
                raise ValueError(f"a new rule needs {', '.join(missing)} (or set `reuse` to a library rule id)")
        return self


MAX_RULES_PER_CALL = 12


class RuleDrafts(Doc):
    """The developer's answer for several rule components asked in one call: one draft per component."""

    rules: list[RuleDraft] = Field(min_length=1, max_length=MAX_RULES_PER_CALL, description=(
        "one draft per component asked, in the order given; each draft's id is its component's id"))


class LevelDraft(Doc):
    level: LevelConfig = Field(description="the complete level config")


class RuleArtifact(Doc):
    id: str = RULE_ID
    source: str
    params: dict[str, Any]
    tests: list[RuleTest]
    meta: dict[str, Any] = Field(default_factory=dict)
    reused_from: str | None = None
    written_for: str = Field("", description="the GDD component it was written for, as canonical JSON")


class CriterionResult(Doc):
    id: str = Field(description="the criterion id from the rubric")
    passed: bool = Field(description="whether the artifact meets the criterion")
    mandatory: bool = Field(True, description="copy the criterion's own value: true when failing it fails the stage")
    kind: str = Field("", description="copy the criterion's kind: 'judged' for criteria you judge ('check:<name>' "
                                      "are automated)")
    reason: str = Field("", description="why it passed or failed, quoting the part of the artifact that decides it")


class Verdict(Doc):
    stage: Literal["brief", "gdd", "rules", "level"]
    passed: bool
    criteria: list[CriterionResult] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    judged_by: str = ""
    unrecoverable: str = ""  # why no retry can pass (e.g. the model's context is too small); the PM must stop


class Guidance(list):
    """A stage's PM guidance in the order given, knowing how many of its first items came from earlier gates
    (a writer sees the latest as what to apply now and the earlier as already applied, superseded where they
    differ: corrections still add up, and a stale one is not read as current)."""

    def __init__(self, items=(), earlier: int = 0):
        super().__init__(items)
        self.earlier = max(0, min(earlier, len(self)))

    @property
    def latest(self) -> list[str]:
        return self[self.earlier:]

    @property
    def before(self) -> list[str]:
        return self[:self.earlier]


class RetryContext(Doc):
    """What a stage's writer sees on a retry: its rejected answer and why it was rejected."""

    previous: str = Field("", description="the previous answer, as JSON")
    errors: list[str] = Field(default_factory=list, description="the failing checks' own messages")
    judge_feedback: list[str] = Field(default_factory=list, description="the analyst's and visual reviewer's "
                                                                        "feedback")


class JudgedReview(Doc):
    """A model's judgement of the judged rubric criteria."""

    results: list[CriterionResult] = Field(description="one result per judged criterion")
    feedback: list[str] = Field(default_factory=list, description="concrete changes the writer should make; the "
                                                                  "writer sees them on a retry")


class MetaFeedback(Doc):
    decision: Literal["advance", "retry", "rollback", "stop"] = Field(description="advance: go on to the next stage; retry: redo this stage; rollback: redo an earlier stage; stop: end the run with a verdict")
    target_stage: Literal["brief", "gdd", "rules", "level", "done"] = Field(description="the stage that acts next: on advance the NEXT stage (after level: done), on retry this stage, on rollback the earlier stage, on stop this stage")
    guidance: list[str] = Field(default_factory=list, description="concrete instructions for the agent that acts "
                                                                  "next (it sees them)")
    reason: str = Field("", description="why, in one sentence")


class VisualVerdict(Doc):
    playable: bool = Field(description="true when nothing in the frames is broken: units visible, not stuck, stacked "
                                       "or off the map")
    aligned: bool = Field(description="true when what the frames show matches the request and the level description")
    observations: list[str] = Field(description="what the frames show, one item per observation, with frame times")
    problems: list[str] = Field(default_factory=list, description="each problem seen, concretely (what, where, "
                                                                  "when); the PM sees them all")
    judged_by: str = Field("", description="leave empty: the pipeline fills in who judged")
    unrecoverable: str = Field("", description="leave empty: the pipeline sets it when the vision model cannot be "
                                               "called as configured (see Verdict.unrecoverable)")
