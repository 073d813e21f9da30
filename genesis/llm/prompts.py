"""Prompt templates: jinja2 with StrictUndefined, so a missing variable fails loudly."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from genesis.templating import template_environment

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "agents" / "prompts"


@lru_cache(maxsize=None)
def _environment(root: str) -> jinja2.Environment:
    return template_environment(
        root,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # prompts are plain text, not HTML
    )


def render(template: str | Path, **ctx: Any) -> str:
    """Render a template by name under genesis/agents/prompts/ (".j2" optional) or by file path.

    A path template may include/extend siblings in its own folder.
    """
    path = Path(template)
    if path.is_absolute() or path.is_file():
        if not path.is_file():
            raise FileNotFoundError(f"prompt template {path} does not exist")
        return _environment(str(path.resolve().parent)).get_template(path.name).render(**ctx)
    env = _environment(str(PROMPTS_DIR))
    name = path.as_posix()
    if not (PROMPTS_DIR / name).is_file() and (PROMPTS_DIR / f"{name}.j2").is_file():
        name = f"{name}.j2"
    try:
        return env.get_template(name).render(**ctx)
    except jinja2.TemplateNotFound as exc:
        raise FileNotFoundError(f"prompt template {name!r} not found under {PROMPTS_DIR}") from exc
