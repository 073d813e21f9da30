"""Every property of every JSON schema a model is given says what it means."""
import importlib
import re
from pathlib import Path

import pytest

AGENTS = Path(__file__).resolve().parents[2] / "genesis" / "agents"
ASK = re.compile(r'self\.ask\("([\w.]+)",\s*(\w+)')


def _output_models():
    """(skill, model) for every `self.ask(skill, Model, ...)` in the agents' source."""
    out = []
    for path in sorted(AGENTS.glob("*.py")):
        module = importlib.import_module(f"genesis.agents.{path.stem}")
        out += [(skill, getattr(module, name)) for skill, name in ASK.findall(path.read_text())]
    return out


def _undescribed(schema: dict) -> list[str]:
    nodes = [(schema.get("title", "root"), schema)] + list(schema.get("$defs", {}).items())
    return [f"{name}.{prop}" for name, node in nodes for prop, sub in node.get("properties", {}).items()
            if not sub.get("description")]


def test_every_agent_output_model_is_found():
    skills = {skill for skill, _ in _output_models()}
    assert {"designer.clarify", "designer.write_gdd", "developer.write_rule", "developer.assemble_level",
            "analyst.review_gdd", "analyst.visual_review", "pm.meta_feedback", "pm.retrospective"} <= skills


@pytest.mark.parametrize("skill, model", _output_models(), ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_every_property_of_the_schema_a_model_is_given_has_a_description(skill, model):
    missing = _undescribed(model.model_json_schema())
    assert not missing, f"{skill}: properties without a description: {missing}"


def test_the_walk_finds_an_undescribed_property():
    from pydantic import BaseModel

    class Bare(BaseModel):
        x: int

    assert _undescribed(Bare.model_json_schema()) == ["Bare.x"]
