"""What the prompts tell a model about the engine, generated from the engine's own code and data.

Every fact a check enforces (map sizes and spawn names, unit types, the level and expectation
models, the rule API, controllers, conditions, switches, reference strategies) is rendered here
from its source, so a prompt never states a format the checks do not apply, nor omits one they do.
"""
from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel

import engine.agent.policies as policies
import engine.systems.combat as combat_system
import engine.systems.economy as economy_system
import engine.systems.vision as vision_system
from engine.catalog import load_catalog, roster_table
from engine.engagement import MAX_BASE, worth_table
from engine.level import RING_GROWTH, RING_SIZE
from engine.maps import deposits_array, ground_passable, label_regions, list_maps, load_map, terrain_array
from engine.systems.orders import ORDER_DOC, PATHING_DOC
from engine.rules import limits
from engine.rules.api import API_DOC, CALLBACK_DOC, RULE_LIB_DOC as RULE_LIB_DOC_TEXT, UNIT_TABLE
from engine.schema.expect import EVENT_FIELD_NOTES, EVENT_FIELDS, ClusterSpec, EventExpectation, IncreasingSpec, \
    ResultSpec, SectorSpec, StateSpec
from engine.schema.level import Condition, Controller, MapRef, StartUnit, Switches, TargetSelector
from engine.sim import TICK_HZ
from engine.schema.roles import RoleSpec
from engine.snapshot import ENVIRONMENT


# --- models as text ------------------------------------------------------------------------------
def _type_text(annotation: Any) -> str:
    """A short, readable type: `int | null`, `list[Team]`, `'any' | 'all'`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_text(args[0])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_text(a) for a in args)
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (list, tuple, dict):
        return f"{origin.__name__}[{', '.join(_type_text(a) for a in args)}]"
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


_DESCRIBED: ContextVar[set[str] | None] = ContextVar("described_models", default=None)


@contextmanager
def recording_described() -> Iterator[set[str]]:
    """The names of the models whose fields the facts rendered inside the block list (the prompt's
    copy of the output schema leaves their descriptions out: each fact once)."""
    seen: set[str] = set()
    token = _DESCRIBED.set(seen)
    try:
        yield seen
    finally:
        _DESCRIBED.reset(token)


def _mark_described(model: type[BaseModel]) -> None:
    seen = _DESCRIBED.get()
    if seen is not None:
        seen.add(model.__name__)


_BOUNDS = (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="), ("min_length", "min length "),
           ("max_length", "max length "))


def _bounds_text(field) -> str:
    found = [f"{sign}{getattr(m, key)}" for m in field.metadata for key, sign in _BOUNDS if hasattr(m, key)]
    return f" ({', '.join(found)})" if found else ""


def model_fields_text(model: type[BaseModel], skip: tuple[str, ...] = ()) -> str:
    """`name: type (bounds) = default — description` for each field of a model: all the prompt's copy of the
    output schema would say of it (a model listed whole here is left out of that copy)."""
    if not skip:
        _mark_described(model)
    parts = []
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        text = f"{name}: {_type_text(field.annotation)}{_bounds_text(field)}"
        if not field.is_required():
            default = field.get_default(call_default_factory=True)
            text += f" = {default!r}" if not isinstance(default, BaseModel) else ""
        else:
            text += " (required)"
        if field.description:
            text += f" — {field.description}"
        parts.append(text)
    return "; ".join(parts)


def _doc(model: type) -> str:
    return " ".join((model.__doc__ or "").split())


def _union_members(annotation: Any) -> list[type[BaseModel]]:
    out = []
    for arg in typing.get_args(annotation):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            out.append(arg)
        else:
            out.extend(_union_members(arg))
    return out


# --- maps ----------------------------------------------------------------------------------------
MAP_PREAMBLE = ("Built-in maps (use {\"name\": ...}; x grows right, y grows down, (0, 0) is the top-left tile; "
                "every coordinate must lie inside the map; a tile is open, water, cliff or bridge and has no height: a "
                "hill or plateau is open ground ringed by cliffs, its ramps the gaps):")


@lru_cache(maxsize=None)
def map_entry(name: str, legend: bool = True) -> str:
    """One built-in map: size, terrain shares, spawn points, metal deposits and its terrain sketch (with the
    sketch's legend unless `legend` is False: a catalog states it once, SKETCH_LEGEND)."""
    return _map_text(name, load_map(MapRef(name=name)), legend)


def map_of(ref: dict | None) -> str:
    """The map a design names ({"name"} or {"generate"}), as `map_entry` describes a built-in one."""
    ref = {k: v for k, v in (ref or {}).items() if v is not None}
    if "name" in ref and ref["name"] in list_maps():
        return map_entry(ref["name"])
    try:
        return _map_text("the procedural map " + json.dumps(ref.get("generate") or {}), load_map(MapRef(**ref)))
    except Exception as exc:  # a design's map that does not load: say so, the schema check names it too
        return f"- the design's map {json.dumps(ref)} does not load: {exc}"


def map_sizes() -> str:
    """Each built-in map's name and size, one line."""
    return "; ".join(f"{name} {m.width}x{m.height}" for name, m in ((n, load_map(MapRef(name=n))) for n in list_maps()))


def _map_text(name: str, m, legend: bool = True) -> str:
    tiles = m.width * m.height
    share = {label: sum(r.count(ch) for r in m.rows) / tiles for ch, label in
             (("~", "water"), ("#", "cliff"), ("=", "bridge"))}
    terrain = ", ".join(f"{v:.1%} {k}" for k, v in share.items() if v > 0) or "open ground"
    deposits = deposits_array(m)
    spawns = ", ".join(f"{s.name} ({s.x:g}, {s.y:g})" for s in m.spawns)
    where = " ".join(f"({x:g},{y:g})" for x, y in deposits.tolist())
    return "\n".join([f"- {name}: {m.width}x{m.height} tiles; {terrain}; spawns: {spawns}",
                      f"  {len(deposits)} metal deposits (tile centres; a metal_extractor earns only on one): {where}",
                      terrain_sketch(m, legend)])


def map_catalog() -> str:
    """Every built-in map (see `map_entry`) and the procedural map's parameters."""
    entries = [map_entry(name, False) for name in list_maps()]
    return "\n".join([MAP_PREAMBLE, SKETCH_LEGEND, *entries, procedural_map()])


def map_overview() -> str:
    """Every built-in map for choosing one: size, terrain shares, spawns and a sketch at most
    SKETCH_COLUMNS wide (the design stage sees the chosen map's full sketch and deposits)."""
    entries = []
    for name in list_maps():
        m = load_map(MapRef(name=name))
        entries += [map_entry(name).splitlines()[0], terrain_sketch(m, False, SKETCH_COLUMNS)]
    return "\n".join([MAP_PREAMBLE, SKETCH_LEGEND, *entries, procedural_map()])


def maps_for(brief: dict | str) -> str:
    """The maps for a design: in full (spawns, deposits, terrain sketch) those the brief names, every other
    built-in map on one line (size and spawns); all in full when the brief names none."""
    text = (brief if isinstance(brief, str) else json.dumps(brief)).lower()
    named = [n for n in list_maps() if n in text or n.replace("_", " ") in text]
    if not named:
        return map_catalog()
    others = [line for name in list_maps() if name not in named for line in map_entry(name).splitlines()[:1]]
    return "\n".join([MAP_PREAMBLE, SKETCH_LEGEND, *(map_entry(name, False) for name in named),
                      "Other built-in maps (terrain not shown: the brief did not pick them):", *others,
                      procedural_map()])


def procedural_map() -> str:
    return ("A procedural map is {\"generate\": MapGenParams {" + model_fields_text(MapRef.model_fields["generate"].annotation.__args__[0])
            + "}} (its spawns: " + ", ".join(s.name for s in load_map(MapRef(generate={})).spawns) + ").")


SKETCH_COLUMNS = 32      # the coarsest sketch: at most this many characters a row ...
SKETCH_MAX_COLUMNS = 64  # ... refined, up to this width, until no narrow passage disappears
SKETCH_PRIORITY = "#~="   # a cell shows the most obstructive terrain it covers, so no blocked tile hides as open


def _coarse_open(passable: np.ndarray, step: int) -> np.ndarray:
    """Cells of `step` x `step` tiles that hold no blocked tile (the sketch's open cells)."""
    h, w = passable.shape
    rows, cols = -(-h // step), -(-w // step)
    padded = np.ones((rows * step, cols * step), dtype=bool)
    padded[:h, :w] = passable
    return padded.reshape(rows, step, cols, step).all(axis=(1, 3))


def sketch_step(m) -> int:
    """The coarsest cell size (at most SKETCH_COLUMNS wide, refined to SKETCH_MAX_COLUMNS) whose open
    cells keep every connection of the ground tiles: a gap narrower than a cell would show as a wall."""
    passable = ground_passable(terrain_array(m))
    _, regions = label_regions(passable)
    finest = max(1, -(-m.width // SKETCH_MAX_COLUMNS))
    for step in range(max(1, -(-m.width // SKETCH_COLUMNS)), finest - 1, -1):
        if label_regions(_coarse_open(passable, step))[1] <= regions:
            return step
    return finest


SKETCH_LEGEND = ("Terrain sketches: a character is a square block of tiles and shows # if any of its tiles is cliff, "
                 "else ~ if any is water, else = for a bridge, else . (open); letters are spawns, keyed above the "
                 "sketch; a row stops at its last non-open cell, an open row is one .")


def terrain_sketch(m, legend: bool = True, columns: int | None = None) -> str:
    """A picture of the map: each cell covers a square block of tiles and shows `#` if any is cliff,
    else `~` if any is water, else `=` for a bridge, else `.`; spawn points are letters, keyed after
    the picture. The cell is as large as it can be without closing a passage (`sketch_step`), or larger
    when `columns` caps the sketch's width (an overview: a narrow passage may then show as blocked)."""
    step = sketch_step(m) if columns is None else max(sketch_step(m), -(-m.width // columns))
    grid = []
    for by in range(0, m.height, step):
        row = []
        for bx in range(0, m.width, step):
            block = "".join(r[bx:bx + step] for r in m.rows[by:by + step])
            row.append(next((ch for ch in SKETCH_PRIORITY if ch in block), "."))
        grid.append(row)
    keys = []
    for i, sp in enumerate(m.spawns):
        letter = chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)
        gx, gy = min(int(sp.x) // step, len(grid[0]) - 1), min(int(sp.y) // step, len(grid) - 1)
        grid[gy][gx] = letter
        keys.append(f"{letter}={sp.name}")
    closed = label_regions(_coarse_open(ground_passable(terrain_array(m)), step))[1] > \
        label_regions(ground_passable(terrain_array(m)))[1]
    passages = "a passage narrower than a cell can show as blocked" if closed else "every passage between open areas shows"
    if legend:
        head = (f"  terrain sketch, 1 character = {step}x{step} tiles (# cliff, ~ water, = bridge, . open; a cell is "
                f"marked blocked if any of its tiles is; {passages}; letters are spawns: {', '.join(keys)}; a row "
                "stops at its last non-open cell, an open row is one .):")
    else:
        head = f"  terrain sketch, 1 character = {step}x{step} tiles ({passages}; {', '.join(keys)}):"
    # an open row keeps one '.', so every row of the map is a line to count
    return "\n".join([head] + ["  " + ("".join(r).rstrip(".") or ".") for r in grid])


def footprints() -> str:
    """Unit sizes and what the placement check counts as an overlap."""
    by_size: dict[float, list[str]] = {}
    for name, u in sorted(load_catalog().units.items()):
        by_size.setdefault(u.size, []).append(name)
    sizes = "; ".join(f"{size:g}: {', '.join(names)}" for size, names in sorted(by_size.items()))
    spread = StartUnit.model_fields["spread"].description
    return ("Footprints: two units overlap when their centres are closer than (size_a + size_b) / 2 tiles. "
            f"Sizes (tiles): {sizes}. A start group of `count` units puts the first at its point and {spread} "
            f"(default 2): {ring_layout()}; ring slots on blocked tiles move to the nearest free tile, "
            "but the group's own point must be a tile the unit can stand on (ground units: not water or cliff).")


def ring_layout() -> str:
    """How a start group of `count` units is laid out, from the engine's placement constants."""
    return (f"unit k (k = 1 .. count-1) stands at angle 360*(k-1)/(count-1) degrees, at radius spread for the first "
            f"{RING_SIZE}, spread*{1 + RING_GROWTH:g} for the next {RING_SIZE}, and so on (every {RING_SIZE} "
            f"units the radius grows by {RING_GROWTH:g}*spread), so neighbouring slots are about 2*radius*sin(180/(count-1)) tiles apart: "
            "a large group on a small spread overlaps, and a group wider than its spawn's open ground spills onto "
            "the nearest free tiles")


def map_names() -> str:
    """Each built-in map's name, size, terrain shares and named spawn points, without the sketch."""
    return ("Built-in maps (sizes in tiles, x grows right, y grows down; distances everywhere are in tiles, times in "
            "game seconds):\n" + "\n".join(line for line in map_catalog().splitlines() if line.startswith("- ")))


def _grouped(values: dict[str, float]) -> str:
    by_value: dict[float, list[str]] = {}
    for name, value in sorted(values.items()):
        by_value.setdefault(value, []).append(name)
    return "; ".join(f"{v:g}: {', '.join(names)}" for v, names in sorted(by_value.items()))


def buildings() -> str:
    """Which units are buildings, from the catalog (a "commander building" was read into the roster before)."""
    catalog = load_catalog().units
    units = catalog.values()
    fixed = sorted({u.category for u in units} - {u.category for u in units if not u.is_building})
    moving = sorted({u.category for u in units} - set(fixed))
    commander = catalog.get("commander")
    mobile_builder = commander is not None and not commander.is_building and commander.build_power
    return (f"A building is a unit of speed 0: every unit of the categories {', '.join(fixed)}; the units of "
            f"{', '.join(moving)} move" + ("; the commander is a mobile builder, not a building." if mobile_builder
                                          else "."))


def unit_roster(balance: bool = True) -> str:
    """The roster table and sight radius, plus, with `balance`, what balancing needs beside them: build
    times, build power, storage (the GDD balances; the brief only picks the units)."""
    units = load_catalog().units
    power = ", ".join(f"{n} {u.build_power:g}" for n, u in sorted(units.items()) if u.build_power)
    storage = ", ".join(f"{n} {u.storage_metal:g}/{u.storage_energy:g}" for n, u in sorted(units.items())
                        if u.storage_metal or u.storage_energy)
    seen = (roster_table(load_catalog()) + buildings() + "\n"
            + "Sight radius (tiles; what a unit sees under fog, and how far it acquires enemies on attack-move or "
            f"patrol): {_grouped({n: u.sight for n, u in units.items()})}.")
    if not balance:
        return seen
    return (seen + "\n"
            f"Build time (a builder of build power P takes build_time / P seconds): "
            f"{_grouped({n: u.build_time for n, u in units.items()})}.\nBuild power: {power}.\n"
            f"Storage (metal/energy each finished unit adds to its team's cap on income): {storage}.")


def roster_of(types: set[str]) -> str:
    """The roster table's lines of `types` (a level's start units), with their sight radius."""
    units = load_catalog().units
    head, columns, *rows = roster_table(load_catalog()).splitlines()
    mine = [row for row in rows if row.split(" | ", 1)[0] in types]
    sight = ", ".join(f"{t} {units[t].sight:g}" for t in sorted(types) if t in units)
    return "\n".join([head, columns, *mine, f"Sight radius (tiles): {sight}."]) if mine else ""


# --- level pieces --------------------------------------------------------------------------------
def controllers() -> str:
    lines = ["Controllers (a team's `controller`):"]
    for model in _union_members(Controller):
        keys = [k for k in ("type", "behaviour") if k in model.model_fields]
        tag = {k: model.model_fields[k].default for k in keys}
        meaning = model.model_fields[keys[-1]].description
        rest = model_fields_text(model, skip=("type", "behaviour"))
        _mark_described(model)   # the skipped tag's meaning is stated on the line too
        lines.append(f"- {model.__name__} {json.dumps(tag)}" + (f" + {rest}" if rest else "") + f": {meaning}"
                     + (f". {_doc(model)}" if _doc(model) else ""))
    # the conditions, which every prompt with the controllers also gets, define the selector once
    lines.append("A target is a point {x, y} or a TargetSelector (see the conditions).")
    return "\n".join(lines)


def controllers_menu() -> str:
    """Each controller by its tag and meaning, without its fields (what a brief can count on)."""
    lines = ["Controllers (who commands a team):"]
    for model in _union_members(Controller):
        keys = [k for k in ("type", "behaviour") if k in model.model_fields]
        tag = "/".join(str(model.model_fields[k].default) for k in keys)
        lines.append(f"- {tag}: {model.model_fields[keys[-1]].description}" + (f". {_doc(model)}" if _doc(model) else ""))
    return "\n".join(lines)


def conditions_menu() -> str:
    """Each declarative condition by its kind and meaning, without its fields."""
    return "Declarative win/loss conditions: " + "; ".join(
        f"{model.model_fields['kind'].default}: {_doc(model).rstrip('.')}" for model in _union_members(Condition)) + "."


def target_selector() -> str:
    return f"a selector TargetSelector {{{model_fields_text(TargetSelector)}}} ({_doc(TargetSelector)})"


def conditions() -> str:
    lines = ["Declarative win/loss conditions (level `conditions`, GDD `conditions`; the engine checks them):"]
    for model in _union_members(Condition):
        lines.append(f"- {model.__name__} {{kind: {model.model_fields['kind'].default!r}, "
                     f"{model_fields_text(model, skip=('kind',))}}}: "
                     f"{_doc(model)}")
        _mark_described(model)   # its kind is stated on the line
    lines.append(f"A TargetSelector is {target_selector()}.")
    return "\n".join(lines)


def switches() -> str:
    return ("Switches (level `switches`, never top-level keys of the level): " + model_fields_text(Switches) + ".")


def start_units() -> str:
    return f"A team's start units, each StartUnit {{{model_fields_text(StartUnit)}}}. {_doc(StartUnit)}"


# --- reference strategies ------------------------------------------------------------------------
def reference_strategies() -> str:
    """Each strategy's behaviour and params, from the reference policy's own docstrings."""
    lines = ["Reference strategies (the scripted reference policy plays the GDD's reference_strategy with its "
             "strategy_params; validation requires it to WIN every seed and to beat an idle player). "
             + policies.describe_reference()]
    shared = policies.ReferencePolicy.SHARED_PARAMS
    for s in policies.describe_strategies():
        params = "; ".join(f"{k}: {v}" for k, v in s["params"].items() if k not in shared)
        lines.append(f"- {s['name']}: {s['behaviour']} strategy_params (all optional): {params}.")
    lines.append("Every strategy also reads these strategy_params (all optional): "
                 + "; ".join(f"{k}: {v}" for k, v in shared.items()) + ".")
    lines.append("Unit roles (strategy_params `roles`, a list, with any strategy; use them when the request turns on "
                 f"one unit's job, e.g. scouting, keeping a VIP back, escorting): each is {{{model_fields_text(RoleSpec)}}}. "
                 f"{_doc(RoleSpec)}")
    for r in policies.describe_roles():
        lines.append(f"- role {r['name']}: {r['behaviour']}")
    lines.append(f"The idle player (the comparison run): {' '.join((policies.IdlePolicy.__doc__ or '').split())}")
    return "\n".join(lines)


def strategy_menu() -> str:
    """The reference strategies by name and behaviour, without their params (what a brief can count on)."""
    lines = ["Reference strategies (the GDD picks one; the scripted reference policy plays it and must WIN every "
             "validation seed; the GDD sets its params): " + policies.describe_reference()]
    lines += [f"- {s['name']}: {s['behaviour']}" for s in policies.describe_strategies()]
    lines.append("Unit roles (with any strategy, the GDD gives them to chosen units): " + "; ".join(
        f"{r['name']}: {_first_sentence(r['behaviour'])}" for r in policies.describe_roles()))
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    head = re.split(r"(?<=[a-z)])\.\s", text, maxsplit=1)[0]
    return head.rstrip(".")


def strategy(name: str, roles: list | None = None) -> str:
    """One reference strategy with its params, the params every strategy shares, and the unit roles the
    design gives (`roles`: its strategy_params' roles), which a level retry may retune."""
    lines = reference_strategies().splitlines()
    strategies = [line for line in lines if line.startswith("- ") and not line.startswith("- role ")]
    chosen = [line for line in strategies if line.startswith(f"- {name}: ")] or strategies
    shared = [line for line in lines if line.startswith("Every strategy also reads")]
    used = {r.get("role") for r in roles or [] if isinstance(r, dict)}
    role_lines = [line for line in lines if line.startswith("- role ") and line.split()[2].rstrip(":") in used]
    heads = [line for line in lines if line.startswith("Unit roles")] if role_lines else []
    return "\n".join([lines[0], *chosen, *shared, *heads, *role_lines])


def combat() -> str:
    """How units fight, from the combat system's docstring."""
    return " ".join((combat_system.__doc__ or "").split())


def fights() -> str:
    """What groups are worth in a fight, from the engine's measured engagement table."""
    table = worth_table()
    base, rows = table["base"], table["types"]

    def worth(kind: str) -> str:
        row = rows[kind]
        if row["worth"] is None:
            return f"{kind} more than {MAX_BASE}"
        if not row["stands"]:
            return f"{kind} {row['worth']:g}"
        return (f"{kind} {row['worth']:g} ({row['seconds']:g} s, {row['beaten_by'] - row['survivors']} of the "
                f"{row['beaten_by']} lost)")

    rows = {base: {"worth": 1.0, "stands": False}, **rows}
    moving = sorted((k for k, r in rows.items() if not r["stands"]), key=lambda k: rows[k]["worth"] or 1e9)
    standing = sorted((k for k, r in rows.items() if r["stands"]), key=lambda k: rows[k]["worth"] or 1e9)
    law = "; ".join(f"{r['big']} v {r['small']} {base}s: {r['survivors']} left after {r['seconds']:g} s"
                    for r in table["square_law"])
    stances = table["stances"]

    def beaten(stance: str) -> str:
        row = stances[stance]
        if row["beaten_by"] is None:
            return f"more than {MAX_BASE}"
        return f"{row['beaten_by']} ({row['attackers_lost']} of these attackers lost)"

    splash = sorted(k for k in rows if load_catalog().units[k].weapon.splash > 0)
    return (
        f"Fight worth (measured by the engine on open ground, no fog: the fewest {base}s attack-moving that beat a "
        f"small group of the type attack-moving back, per unit of it; use it to size forces and to estimate "
        f"expectations before any run): {', '.join(worth(k) if k != base else f'{base} 1' for k in moving)}. "
        f"Standing where they are (buildings; builders, which AIs leave in place), with how long it took and how many "
        f"{base}s died: {', '.join(worth(k) for k in standing)}. How a group fights matters as much as its worth: "
        f"a group of {stances['group']} {base}s that is attacked is beaten by {beaten('moving')} attack-moving "
        f"{base}s when the group attack-moves back, by {beaten('defend')} when it guards its ground with the defend "
        f"AI, and by {beaten('standing')} when it stands (hold, none or idle controllers, units without orders: an "
        "idle player's army stands too): a standing unit shoots only within its weapon "
        "range, measured to its target's edge, so the units out of range wait while every attacker shoots, and a "
        "bigger unit is hit from where it cannot answer. A group on `move` orders is no harmless column: it shoots "
        "whatever comes within weapon range as it walks (it only never stops or chases), so a head-on meeting is a "
        "fight; only `move_force` never shoots. Splash weapons "
        f"({', '.join(splash)}) are worth more against a clumped group. Only weapons that hit air touch air units. "
        "Groups follow the square law: a side's strength is its total worth squared; a fight to the end leaves the "
        f"stronger side about √(S² − W²) worth (measured: {law}). Sides within ~10% may go either way, so an "
        "expectation that needs one side to win needs a clear margin; a fight of ~10 units a side ends 10–30 s after "
        "contact, and groups that arrive one at a time are beaten one at a time.")


def vision() -> str:
    """What fog of war hides, as the vision system states it."""
    return f"Fog of war (switch fog_of_war): {vision_system.VISION_DOC}."


def orders() -> str:
    """What each unit order does and how units find their way, from the order system."""
    kinds = "\n".join(f"- {kind}: {text}" for kind, text in ORDER_DOC.items())
    return f"Unit orders (from an agent, an AI or a rule's order()):\n{kinds}\n{PATHING_DOC}"


def economy() -> str:
    """How resources flow, from the economy system's docstring."""
    return " ".join((economy_system.__doc__ or "").split())


# --- expectations ----------------------------------------------------------------------------------
def expectation_grammar() -> str:
    """The expectation families and the fields each trace event kind carries."""
    lines = ["Expectations (a list; each entry has exactly one of `event`, `result`, `state`; unknown keys are errors):",
             f"- EventExpectation {{event: kind, ...}}: {_doc(EventExpectation)} Keys: "
             f"{model_fields_text(EventExpectation, skip=('event',))}.",
             f"  distinct_sectors: SectorSpec {{{model_fields_text(SectorSpec)}}}; time_clusters: ClusterSpec "
             f"{{{model_fields_text(ClusterSpec)}}}; increasing: IncreasingSpec {{{model_fields_text(IncreasingSpec)}}}.",
             "  `where` paths must be fields of the event kind:"]
    for kind, fields in EVENT_FIELDS.items():
        note = EVENT_FIELD_NOTES.get(kind)
        lines.append(f"    {kind}: {', '.join(fields)}" + (f" ({note})" if note else ""))
    lines.append("  `where` compares numbers by value (400 matches 400.0); a Lua boolean logged in fields matches the JSON "
                 "boolean (true matches true).")
    lines.append("  Spawn and death events carry no tag: select tagged units with a `state` expectation or a rule_log.")
    lines.append("  Order events are the orders of the team under test (its policy) only: orders given by a rule's "
                 "order() or by an AI controller leave no order event (show their effect with `state` positions).")
    lines.append("  A run stopped by a test's `until` ends with an end event whose ended_by is 'until', and no winners.")
    _mark_described(EventExpectation)   # its `event` key is the line's kind and the kinds are listed above
    lines.append(f"- {{result: ResultSpec}}: the run's outcome; ResultSpec keys: {model_fields_text(ResultSpec)}.")
    lines.append(f"- {{state: StateSpec}}: {_doc(StateSpec)} StateSpec keys: {model_fields_text(StateSpec)}. "
                 "Use it to show a mechanic really happened (resources moved, units spawned or destroyed, "
                 "a unit changed owner or reached a place).")
    from genesis.simulate import IDLE_SEEDS, REFERENCE_SEEDS, RUSH_SEEDS

    def needed(seeds: tuple) -> str:
        return f"{len(seeds) // 2 + 1} of its {len(seeds)} seeds ({', '.join(map(str, seeds))})"
    lines.append(f"A GDD requirement is confirmed when all its expectations hold in more than half of the validation "
                 f"runs of its `on` policy: the reference's {needed(REFERENCE_SEEDS)}, idle's {needed(IDLE_SEEDS)}, "
                 f"rush's {needed(RUSH_SEEDS)} (rush runs are played only when a requirement is on rush), a probe's "
                 "(on \"probe:<name>\": that entry of the GDD's `variation.probes`, its orders played blind on the same "
                 "seeds as rush, only when a requirement is on it); a rule test's expectations hold in its one run. A "
                 "loss path the reference never takes and idle never suffers (the army wiped out, a unit killed in the "
                 "fight) is evidenced on rush, which throws every combat unit at the enemy, or on a probe that plays "
                 "the careless plan that suffers it (the target driven to the map edge, the escort left behind). Each run is checked alone: no expectation compares runs or seeds (what "
                 "differs between seeds is the certificate's to show, declared in the GDD's `variation`), and a run "
                 "that ends early (a win at 0:48) never shows what only a longer game would: such a clause is partial "
                 "unless a run reaches it (the GDD may change a requirement's `on`).")
    return "\n".join(lines)


# --- the rule API ----------------------------------------------------------------------------------
# The rule API's description lives next to its implementation, in the engine.
RULE_API, CALLBACKS, RULE_LIB_DOC = API_DOC, CALLBACK_DOC, RULE_LIB_DOC_TEXT


# What the rule API cannot do, each with the wording of a component purpose that would need it
# (None: no wording reliably shows the need); the GDD's rules_known_api check applies the patterns to
# what a purpose claims, not to what it denies (genesis.checks.api_claims).
RULE_API_LIMITS: tuple[tuple[str, str | None], ...] = (
    ("resources are only granted, taken and moved: give_resources adds (storage does not cap a grant), "
     "take_resources and transfer_resources remove at most what the team has; nothing sets a storage cap or an "
     "income rate", None),
    ("rules share no state: each script runs in its own sandbox; two components cannot read each other's "
     "variables (put logic that needs shared state in one component)", None),
    ("on_area_entered watches a fixed circle and calls back once per unit, the first time it enters (a unit "
     "leaving and coming back is not seen again); a rectangle, a moving or shrinking area, a line, a map edge or "
     "every crossing is watched by polling in an every() callback (units_in_area / in_area of an area_circle or "
     "area_rect, or unit positions from units())", None),
    ("mark() draws a labelled point marker that stays for the rest of the game (an area can be moved or removed, a "
     "marker cannot: label it for the whole game) and area_circle / area_rect an outlined area (colours as "
     "'#rrggbb'); neither leaves a trace event (log() what an expectation must see)", None),
    ("win(team) ends the game at once: `team` and its allies win, every other team loses (win and lose events); "
     "lose(team) puts `team` and its allies out (lose events): they are losers of however the game ends, and once "
     "a single alliance is left the game ends with it as winners (win events); a side that had units and has none "
     "left is out the same way, unless something may bring it back (a rule spawned units for it, or no agent plays "
     "it, i.e. its controller is ai or none, and the level has rules: call lose() when such a side is beaten) or "
     "the level ranks sides by score; "
     "nothing happens after the game has ended", None),
    (f"the ENVIRONMENT side (id {ENVIRONMENT} in trace events and expectations; hazards spawned with "
     "spawn(ENVIRONMENT, ...)) is hostile to every team and never wins, loses or keeps a game going; it has no "
     "resources and no controller", None),
    ("on_unit_destroyed(u) gets only the dead unit (no killer; the trace's death event has killer_team, nil for "
     "rule damage)", None),
    ("units are created only by spawn() (or the level / production); a rule cannot change a unit's type, "
     "speed, weapon or max hp (damage/heal change hp, set_sight its sight, set_fire whether it may fire, set_team "
     "its side, set_cloak whether others see it), nor remove a unit other than by killing it with damage(), nor "
     "change the terrain",
     r"\b(?:transform|transforms|morph|morphs|mutate|mutates|evolve|evolves)\b[^.;]{0,30}\binto\b|"
     r"\b(?:turn|turns)\s+into\b|\b(?:upgrade|upgrades)\b[^.;]{0,30}\binto\b|\b(?:change|changes|switch|switches)\b[^.;]{0,20}"
     r"\b(?:unit type|its type|their type)\b"),
    ("a game ended by a rule has ended_by 'rule'; by a declarative condition or a side left alone 'condition'; by "
     "the time limit 'time_limit'; by a runtime error 'error'", None),
)


def rule_api_limits() -> str:
    return "What rules cannot do:\n" + "\n".join(f"- {limit}" for limit, _ in RULE_API_LIMITS)


def _signature(text: str) -> str:
    """`name(args)` of a rule API line: its text up to the argument list's closing parenthesis."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ")" and depth == 0:
            return text[:i + 1]
    return text


def rule_api_menu() -> str:
    """The rule API by signature only, plus its limits: what a designer can ask a new rule component to do
    (the developer, who writes the rule, gets each function's meaning)."""
    return ("Rule scripts (Lua, written by the developer) react to " + ", ".join(_signature(c) for c in CALLBACKS)
            + " and call: " + ", ".join(_signature(t) for t in RULE_API.values()) + ".\n" + _design_semantics()
            + rule_api_limits())


# the functions whose meaning a design is balanced on, said to the designer as the developer is told them
DESIGN_SEMANTICS = ("at", "every", "units", "damage", "damage_area", "heal", "heal_area", "spawn", "set_fire",
                    "set_sight", "set_cloak", "set_detector", "set_team", "transfer_resources", "set_controller",
                    "passable")


def _design_semantics() -> str:
    lines = [f"- {RULE_API[name]}" for name in DESIGN_SEMANTICS if name in RULE_API]
    return ("What some of them do (a design balances on these):\n" + "\n".join(lines) + "\n"
            f"- time: the game advances {TICK_HZ} ticks a game second; every time a rule or a GDD gives is in game "
            "seconds\n"
            f"- a unit table: {UNIT_TABLE}\n"
            "- what the agent under test sees: message() text in its observation; mark() markers and areas only "
            "in the drawn frames (an agent observing images sees them, one reading the JSON observation does not)\n")


def rule_api() -> str:
    lines = ["Rule API (Lua 5.4). A script defines callbacks as globals:"]
    lines += [f"- {c}" for c in CALLBACKS]
    lines.append("Functions (the only ones; os, io, load, require, debug, package, string.dump, collectgarbage and "
                 "math.random do not exist; a runtime error ends the run with ended_by=error):")
    lines += [f"- {text}" for text in RULE_API.values()]
    lines.append("Lua's own library is there otherwise: pairs (in sorted key order), ipairs, next, select, type, tostring, "
                 "tonumber, pcall, xpcall, error, assert, setmetatable, getmetatable, raw* and the tables string (with "
                 "string.format), table, math, utf8 and coroutine.")
    lines.append("param() returns the value in its JSON shape: a list is a 1-based Lua sequence, an object a table "
                 "(its keys strings, also where they look like numbers: {\"0\": ...} is read as p[\"0\"]).")
    lines.append(f"The game advances {TICK_HZ} ticks a game second; time(), at() and every() are in game seconds.")
    lines.append(f"Budgets (a script over one ends the run with ended_by=error): {limits.CALL_BUDGET:,} Lua "
                 f"instructions per callback, {limits.RUN_BUDGET:,} per script over the whole run (the library's "
                 f"rules use about 10,000); each API call costs {limits.API_CALL_COST}, order() "
                 f"{limits.ORDER_UNIT_COST} per unit named; {limits.MEMORY_MB} MB of memory; at most "
                 f"{limits.MAX_TIMERS} pending timers and {limits.MAX_SPAWN_PER_RUN:,} spawned units per run.")
    lines.append(f"Rule library, predefined table lib: {RULE_LIB_DOC}.")
    lines.append(rule_api_limits())
    return "\n".join(lines)


def unit_names() -> str:
    from engine.catalog import units_by_category

    groups = units_by_category(load_catalog())
    return "Unit types by category: " + "; ".join(
        f"{cat}: {', '.join(keys)}" for cat, keys in groups.items()) + ". " + buildings()


def level_fields() -> str:
    from engine.schema.level import LevelConfig, Team

    return (f"LevelConfig {{{model_fields_text(LevelConfig)}}}; a team is Team {{{model_fields_text(Team)}}}; "
            "unknown keys are errors")


def _one_draw_odds(seeds: int) -> str:
    """How likely one seeded choice among k equal options fails the blind-replay requirement by chance: the
    replay wins seed 0 and every other seed that draws seed 0's option."""
    from math import comb

    allowed = seeds // 2
    others = seeds - 1

    def fails(k: int) -> float:
        p = 1 / k
        return sum(comb(others, j) * p ** j * (1 - p) ** (others - j) for j in range(allowed, others + 1))

    odds = ", ".join(f"{fails(k):.0%} with {k}" for k in (2, 3, 4, 6, 8))
    return (f"A single seeded choice among k equal options fails (3) by chance when {allowed} of the other "
            f"{others} seeds draw seed 0's option (the replay tends to win those): {odds} options; combine "
            "independent draws (side x time x "
            "composition) or offer more options rather than rely on one small choice. Options count apart only when "
            "the replay's path cannot meet them all: its attack-moves fight whatever comes within its units' sight of "
            "seed 0's route, so sites closer together than that (or passed on the way) are one option to it. An "
            "objective that visits "
            "every option over a long game is met by a replay parked anywhere: then what must vary is the order and "
            "timing of the visits, and the win must come before the cycle completes.")


def validity_certificate() -> str:
    """What the level gate's certificate plays and requires, and the tools that make seeds matter."""
    from genesis.certificate import SEEDS

    n = len(SEEDS)
    return (
        f"Validity certificate (a level-stage criterion: a level that plays but fails it is NOT CERTIFIED and never "
        f"reaches the knowledge base). Once the other level checks pass, the level is played on {n} seeds "
        f"({', '.join(map(str, SEEDS))}) by: the reference strategy (must win every seed); idle (must win none); "
        "random (seeded moves, squad orders, production and extractors); rush (every combat unit attack-moves at the "
        "nearest visible enemy, else at the mean of the hostile teams' start positions, or the map centre when no "
        "hostile team has start units; it never produces or builds); turtle (each unit "
        "holds its start post, attack-moving onto a visible enemy within "
        "10 tiles of it; it never produces or builds); each cheap policy stops at its first lost seed; each exploit probe of `variation.probes`; and the blind "
        "replay of the reference's seed-0 orders by game time. It requires: (1) the seed changes the game: the "
        "reference plays a different game on at least 2 of the later seeds, unless `variation.fixed_by` quotes the "
        "clause of the request that fixes every event (a fixed drill); (2) no cheap policy (random, rush, turtle, a "
        "probe) wins every seed; (3) the blind replay wins at most half the seeds, unless `variation.fixed_by` is set "
        "(a fixed drill passes (1) and (3) as 'fixed drill: <clause>'; (2) still holds). For (2) the design needs a "
        "decision a careless policy gets wrong: where every enemy comes to the player's units, rush and turtle "
        "fight as a defending reference does and win as often (give a lure rush charges into, a second front or "
        "target a single clump cannot cover, a time to hold back). " + _one_draw_odds(n) + "\n"
        "Tools that make a seed matter: `random()` / `random_int(a, b)` in a rule (seeded: the same seed gives the "
        "same draws) to pick which front or side an attack hits and in what order, wave times within a window, "
        "spawn or objective positions among candidates, the composition; `switches.spawn_jitter` (tiles: mobile "
        "start units shift per seed; the GDD names it as 'switches.spawn_jitter=<tiles>' in a variation's `how` and the "
        "level sets it); a waves AI's `choose_target`. Vary what the request leaves open; where it "
        "fixes an event, jitter it only within what its requirements allow (widen their expectation windows to "
        "match). The reference must win by observing: no strategy param may name where or when a hidden enemy "
        "appears (it would lose the seeds where that differs), and since the agent under test never sees unit tags, "
        "a reference that targets a tag marking the one real target among look-alikes knows a hidden answer.\n"
        "The difficulty band comes from the seeds each policy played: easy (a cheap policy won a seed), medium (none "
        "did; the blind replay won a seed after seed 0), hard (neither).\n"
        "The GDD declares it in `variation` (its schema: `varies`, `fixed_by`, exploit `probes` played blind, the "
        "balance `knob`); a useful probe is the cheapest plan that exploits the design "
        "(everything to one objective, the escorted unit around the danger, standing still in the zone).")


class Facts:
    """The generated facts, rendered once per process and shared by every prompt."""

    @property
    def maps(self) -> str:
        return map_catalog()

    @property
    def map_overview(self) -> str:
        return map_overview()

    @property
    def map_names(self) -> str:
        return map_names()

    @property
    def map_sizes(self) -> str:
        return map_sizes()

    @staticmethod
    def map_of(ref: dict | None) -> str:
        return map_of(ref)

    @staticmethod
    def maps_for(brief: dict | str) -> str:
        return maps_for(brief)

    @property
    def roster(self) -> str:
        return unit_roster()

    @staticmethod
    def roster_of(gdd: dict) -> str:
        """The roster lines of the unit types the GDD's teams start with (the GDD as the prompt gets it: JSON)."""
        return roster_of({u["type"] for t in gdd.get("teams") or [] for u in t.get("units") or []})

    @property
    def roster_picks(self) -> str:
        return unit_roster(balance=False)

    @property
    def unit_names(self) -> str:
        return unit_names()

    @property
    def controllers(self) -> str:
        return controllers()

    @property
    def conditions(self) -> str:
        return conditions()

    @property
    def controllers_menu(self) -> str:
        return controllers_menu()

    @property
    def conditions_menu(self) -> str:
        return conditions_menu()

    @property
    def switches(self) -> str:
        return switches()

    @property
    def start_units(self) -> str:
        return start_units()

    @property
    def strategies(self) -> str:
        return reference_strategies()

    @property
    def strategy_menu(self) -> str:
        return strategy_menu()

    @staticmethod
    def strategy(name: str, roles: list | None = None) -> str:
        return strategy(name, roles)

    @property
    def rule_api(self) -> str:
        return rule_api()

    @property
    def rule_api_menu(self) -> str:
        return rule_api_menu()

    @property
    def footprints(self) -> str:
        return footprints()

    @property
    def combat(self) -> str:
        return combat()

    @property
    def fights(self) -> str:
        return fights()

    @property
    def economy(self) -> str:
        return economy()

    @property
    def vision(self) -> str:
        return vision()

    @property
    def orders(self) -> str:
        return orders()

    @property
    def expectations(self) -> str:
        return expectation_grammar()

    @property
    def level_fields(self) -> str:
        return level_fields()

    @property
    def certificate(self) -> str:
        return validity_certificate()


FACTS = Facts()
