"""The jinja2 environments of the package's templates (prompts, report, review pages, rule recipes).

They share one bytecode cache, jinja2's per-user folder in the system temp directory, keyed by each
template's name and source checksum: a new process renders the report or a prompt without
compiling its template again (the report's takes ~0.1 s of CPU to compile).
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2


@functools.cache
def _bytecode_cache() -> jinja2.BytecodeCache | None:
    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):       # no private temp folder to be had: compile every time
        return None


def template_environment(folder: str | Path, **options: Any) -> jinja2.Environment:
    """A jinja2 Environment loading templates from `folder`, with the shared bytecode cache."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(folder), bytecode_cache=_bytecode_cache(), **options)
