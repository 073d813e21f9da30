"""The output schema as the prompt shows it: the same constraints in a third of the characters.

The request's `response_format` carries the full JSON schema. The copy in the prompt is a compact
type notation of that schema: every object with its keys (`key?` = optional, `= default`), types,
enums, bounds and descriptions, each referenced model once by name. A model whose fields the prompt's
facts already list whole is only named (each fact once).
"""
from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

LEGEND = ("Notation: `Name: {key: type, key?: type = default}` (`?` marks an optional key; objects take only the keys "
          "listed; `key?: T | null` takes null or may be left out, which means null), "
          "`T[]` a list, `{str: T}` an object with any keys, `A | B` either, \"x\" a literal string, "
          "`// text` the meaning of the key before it; a name stands for the model defined on its own line.")
_BOUNDS = (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<"),
           ("minItems", "min items "), ("maxItems", "max items "), ("minLength", "min length "),
           ("maxLength", "max length "), ("pattern", "pattern "))


def schema_text(schema: dict[str, Any], described: Collection[str] = ()) -> str:
    """The schema's root model and then every model it references, one line each; a model the prompt's facts
    list whole (`described`: every field with its type, bounds, default and meaning) is named, not repeated."""
    defs = schema.get("$defs") or {}
    root = schema.get("title") or "Answer"
    lines = [f"{root}: {_type(schema, defs, describe=True)}"]
    lines += [f"{name}: {_type(node, defs, describe=True)}" for name, node in defs.items() if name not in described]
    listed = [name for name in defs if name in described]
    if listed:
        lines.append(f"Listed whole in this prompt's facts (by name), not repeated here: {', '.join(listed)}.")
    return "\n".join([LEGEND, *lines])


def _type(node: Any, defs: dict, describe: bool) -> str:
    if not isinstance(node, dict) or not node:
        return "any"
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in node:
            return " | ".join(_type(o, defs, describe) for o in node[key]) + _bounds(node)
    kind = node.get("type")
    if isinstance(kind, list):
        return " | ".join(_type({**node, "type": k}, defs, describe) for k in kind)
    if kind == "array":
        items = node.get("items")
        inner = _type(items, defs, describe) if items else "any"
        return (f"({inner})[]" if " | " in inner else f"{inner}[]") + _bounds(node)
    if kind == "object" or "properties" in node:
        props = node.get("properties") or {}
        if not props:
            extra = node.get("additionalProperties")
            return "{str: " + (_type(extra, defs, describe) if isinstance(extra, dict) else "any") + "}"
        required = set(node.get("required") or [])
        return "{" + ", ".join(_field(name, p, name in required, defs, describe) for name, p in props.items()) + "}"
    names = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "null"}
    return names.get(kind, "any") + _bounds(node)


def _field(name: str, node: dict, required: bool, defs: dict, describe: bool) -> str:
    text = f"{name}{'' if required else '?'}: {_type(node, defs, describe)}"
    if not required and "default" in node and node["default"] not in (None, [], {}):
        text += f" = {json.dumps(node['default'], ensure_ascii=False)}"
    if describe and node.get("description"):
        text += f" // {' '.join(node['description'].split())}"
    return text


def _bounds(node: dict) -> str:
    found = [f"{sign}{node[key]}" for key, sign in _BOUNDS if key in node]
    return f" ({', '.join(found)})" if found else ""
