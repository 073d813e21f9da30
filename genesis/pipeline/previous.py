"""What a retrying writer is shown of its rejected artifact: what it wrote, compactly."""
from __future__ import annotations

import json
from typing import Any

from engine.schema.level import StartUnit

MAX_PREVIOUS_CHARS = 24000   # the rejected artifact shown back to its writer
PIPELINE_METADATA = ("generator", "variation")   # level metadata the pipeline writes, not the developer
SHORT_PARAMS_CHARS = 200     # rule params shown in full even when the prompt lists them
SAME_PARAMS = "<unchanged: exactly the params listed for this rule under Rules; copy them into your answer>"
UNIT_DEFAULTS = {name: StartUnit.model_fields[name].default for name in ("count", "spread")}


def _unit(u: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in u.items() if UNIT_DEFAULTS.get(k, object()) != v}


def _team(t: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in t.items() if k not in ("allies", "resources", "units") or v}
    if not any((t.get("resources") or {}).values()):
        out.pop("resources", None)
    return {**out, "units": [_unit(u) for u in t.get("units") or []]}


def _rule(r: dict[str, Any], given: dict[str, dict[str, Any]]) -> dict[str, Any]:
    params = r.get("params")
    if params and params == given.get(r.get("id")) and len(json.dumps(params)) > SHORT_PARAMS_CHARS:
        return {**r, "params": SAME_PARAMS}
    return r


def level_as_written(level: dict[str, Any], rule_params: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The level without what the pipeline added, without the start units' and teams' fields left at their
    defaults (a unit's count and spread, empty allies, zero resources) and without long rule params that
    are the ones the prompt lists (`rule_params`: rule id -> params): the same level, shorter."""
    out = {k: v for k, v in level.items() if k not in ("metadata", "teams", "rules")}
    out["rules"] = [_rule(r, rule_params or {}) for r in level.get("rules") or []]
    out["teams"] = [_team(t) for t in level.get("teams") or []]
    metadata = {k: v for k, v in (level.get("metadata") or {}).items() if k not in PIPELINE_METADATA}
    return {**out, **({"metadata": metadata} if metadata else {})}


# values a writer chose, where null may mean something (a param, a `where` match): kept as written
CHOSEN_VALUES = ("params", "strategy_params", "where", "metadata")


def without_defaults_null(value: Any) -> Any:
    """A document dump without its null fields (null is each such field's default), except under the keys
    whose values the writer chose (CHOSEN_VALUES)."""
    if isinstance(value, dict):
        return {k: v if k in CHOSEN_VALUES else without_defaults_null(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_defaults_null(v) for v in value]
    return value


def previous_text(target: str, previous: Any, rules: list | None = None) -> str:
    """The rejected artifact of stage `target` as its writer sees it on a retry (`rules`: the stage-3
    rule artifacts, whose params the level prompt lists)."""
    if not previous:
        return ""
    if target == "rules":     # as the developer wrote them: library rules by reference
        previous = [{"id": r.id, "reuse": r.reused_from, "params": r.params} if r.reused_from else
                    r.model_dump(mode="json", include={"id", "params", "source", "meta", "tests"}) for r in previous]
    elif target in ("brief", "gdd"):
        previous = previous.model_dump(mode="json")
    if target == "level":
        text = json.dumps(level_as_written(previous, {r.id: r.params for r in rules or []}), separators=(",", ":"))
    else:
        text = json.dumps(without_defaults_null(previous), separators=(",", ":"))
    if len(text) > MAX_PREVIOUS_CHARS:
        text = text[:MAX_PREVIOUS_CHARS] + f" ... [cut: {len(text) - MAX_PREVIOUS_CHARS} more characters]"
    return text
