"""Prompt templates: jinja2 with StrictUndefined, so a missing variable fails loudly."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from genesis.templating import template_environment

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "agents" / "prompts"


@lru_cache(maxsize=None)
def _environment(root: str) -> jinja2.Environment:
    env = template_environment(
        root,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # prompts are plain text, not HTML
    )
    env.filters["compact"] = compact_json
    return env


def compact_json(value: Any, drop: tuple[str, ...] = ()) -> str:
    """JSON without the nulls of a model dump and without spaces after separators: a key whose value is null
    is left out (null is each such field's default; an empty list may be a param's value, so it stays), except
    in an expectation's `where`;
    `drop`: top-level keys the reader has no use for."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in drop}
    return json.dumps(_without_empty(value), ensure_ascii=False, separators=(",", ":"))


def _without_empty(value: Any, nulls_said: bool = False) -> Any:
    """`nulls_said`: inside an expectation's `where`, where null is a wanted value ("killer_team": null), not a default."""
    if isinstance(value, dict):
        return {k: _without_empty(v, nulls_said or k == "where") for k, v in value.items() if nulls_said or v is not None}
    if isinstance(value, list):
        return [_without_empty(v, nulls_said) for v in value]
    return value


def render_parts(template: str | Path, **ctx: Any) -> tuple[str, str]:
    """(static, task): a template's `static` block (the same for every call of its skill in a run, so it
    goes first, where providers cache a prompt's prefix) and its `task` block. A template without
    blocks is all task."""
    t = _template(template)
    if "static" not in t.blocks:
        return "", t.render(**ctx)
    context = t.new_context(ctx)
    return "".join(t.blocks["static"](context)), "".join(t.blocks["task"](context))


def render(template: str | Path, **ctx: Any) -> str:
    """Render a template by name under genesis/agents/prompts/ (".j2" optional) or by file path.

    A path template may include/extend siblings in its own folder.
    """
    return _template(template).render(**ctx)


def _template(template: str | Path) -> jinja2.Template:
    path = Path(template)
    if path.is_absolute() or path.is_file():
        if not path.is_file():
            raise FileNotFoundError(f"prompt template {path} does not exist")
        return _environment(str(path.resolve().parent)).get_template(path.name)
    env = _environment(str(PROMPTS_DIR))
    name = path.as_posix()
    if not (PROMPTS_DIR / name).is_file() and (PROMPTS_DIR / f"{name}.j2").is_file():
        name = f"{name}.j2"
    try:
        return env.get_template(name)
    except jinja2.TemplateNotFound as exc:
        raise FileNotFoundError(f"prompt template {name!r} not found under {PROMPTS_DIR}") from exc
