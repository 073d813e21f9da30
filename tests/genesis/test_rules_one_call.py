"""The new rules of a rules visit are asked in one call (the rule API, grammar and worked example sent once);
a component with something of its own to reuse, keep or fix is asked alone, and a replay follows the call
plan its recording was made with."""
from pathlib import Path
from types import SimpleNamespace

from genesis.agents.base import PROMPTS
from genesis.agents.developer import design_context
from genesis.llm import render
from genesis.llm.transcript import CALL_PLAN, ReplayIndex, Transcript
from genesis.models import RuleArtifact, RuleComponent, RuleDraft
from genesis.offline.brief_writer import write_brief
from genesis.offline.concepts import read
from genesis.offline.gdd_writer import design
from genesis.pipeline.nodes import Nodes
from genesis.prompt_facts import FACTS

REPO = Path(__file__).resolve().parents[2]
QUERY = "defend two fronts against three waves"
COMPONENTS = [RuleComponent(id="alpha", kind="spawn", purpose="Spawns a scout for team 1 at the start."),
              RuleComponent(id="beta", kind="economy", purpose="Gives team 0 ten metal every 30 seconds."),
              RuleComponent(id="gamma", kind="setup", purpose="Marks the map centre.", library_rule="lib_mark")]
GDD_DOC = design(write_brief(QUERY, read(QUERY), [])).model_copy(update={"rule_components": COMPONENTS})


def _draft(cid: str) -> RuleDraft:
    return RuleDraft(id=cid, source=f"-- {cid}", params={}, meta={"title": cid, "description": "d"},
                     tests=[{"name": "x", "level": {"name": "n", "description": "d", "map": {"name": "open_field"},
                                                    "teams": [{"id": 0, "name": "p"}]},
                             "expect": [{"event": "rule_log"}]}])


class Developer:
    def __init__(self, leave_out=()):
        self.calls, self.leave_out = [], set(leave_out)

    def write_rules(self, components, gdd, guidance, example, criteria, kept):
        self.calls.append(("together", [c.id for c in components]))
        return [_draft(c.id) for c in components if c.id not in self.leave_out]

    def write_rule(self, comp, lib, guidance, example, retry, criteria, gdd, verified=None, kept=None):
        self.calls.append(("alone", comp.id))
        if lib is not None:
            return RuleDraft(id=comp.id, reuse=lib["id"], params={})
        return _draft(comp.id)


def _run(tmp_path, developer, plan=CALL_PLAN, components=COMPONENTS):
    gdd = GDD_DOC.model_copy(update={"rule_components": components})
    library = {"id": "lib_mark", "source": "-- lib", "meta": {"id": "lib_mark", "title": "m", "description": "d",
                                                               "params": {}, "concepts": []}, "tests": []}
    kb = SimpleNamespace(get=lambda col, rid: library if rid == "lib_mark" else None)
    ctx = SimpleNamespace(developer=developer, kb=kb, say=lambda *a: None, out_dir=tmp_path,
                          rubrics_root=REPO / "rubrics", client=SimpleNamespace(call_plan=plan))
    return Nodes(ctx).write_rules({"gdd": gdd, "verdicts": {}, "rules": [], "rule_tests": {}})


def test_the_new_rules_of_a_visit_are_asked_in_one_call_and_a_library_rule_the_gdd_names_is_reused_without_one(
        tmp_path, monkeypatch):
    monkeypatch.setattr("genesis.pipeline.nodes.library_rule", lambda e: SimpleNamespace(model_dump=lambda **k: e))
    monkeypatch.setattr("genesis.pipeline.nodes.keep_or_build", lambda d, v, kb: _artifact(d))
    dev = Developer()
    update = _run(tmp_path, dev)
    assert dev.calls == [("together", ["alpha", "beta"])]
    assert [a.id for a in update["rules"]] == ["alpha", "beta", "gamma"]
    assert update["rules"][0].source == "-- alpha"
    # a replay of a recording that asked for it asks again
    dev = Developer()
    _run(tmp_path, dev, plan=2)
    assert dev.calls == [("together", ["alpha", "beta"]), ("alone", "gamma")]


def test_a_library_rule_given_params_it_does_not_declare_is_asked_about(tmp_path, monkeypatch):
    monkeypatch.setattr("genesis.pipeline.nodes.library_rule", lambda e: SimpleNamespace(model_dump=lambda **k: e))
    monkeypatch.setattr("genesis.pipeline.nodes.keep_or_build", lambda d, v, kb: _artifact(d))
    dev = Developer()
    odd = COMPONENTS[2].model_copy(update={"params": {"colour": "red"}})
    _run(tmp_path, dev, components=[odd])
    assert dev.calls == [("alone", odd.id)]


def test_a_component_the_answer_leaves_out_is_asked_alone(tmp_path, monkeypatch):
    monkeypatch.setattr("genesis.pipeline.nodes.keep_or_build", lambda d, v, kb: _artifact(d))
    dev = Developer(leave_out={"beta"})
    update = _run(tmp_path, dev, components=COMPONENTS[:2])
    assert dev.calls == [("together", ["alpha", "beta"]), ("alone", "beta")]
    assert [a.source for a in update["rules"]] == ["-- alpha", "-- beta"]


def test_a_replay_of_a_recording_that_asked_each_rule_alone_asks_each_alone(tmp_path, monkeypatch):
    monkeypatch.setattr("genesis.pipeline.nodes.keep_or_build", lambda d, v, kb: _artifact(d))
    dev = Developer()
    _run(tmp_path, dev, plan=1, components=COMPONENTS[:2])
    assert dev.calls == [("alone", "alpha"), ("alone", "beta")]


def test_one_new_rule_keeps_the_one_rule_prompt(tmp_path, monkeypatch):
    monkeypatch.setattr("genesis.pipeline.nodes.keep_or_build", lambda d, v, kb: _artifact(d))
    dev = Developer()
    _run(tmp_path, dev, components=COMPONENTS[:1])
    assert dev.calls == [("alone", "alpha")]


def test_the_replay_index_reads_the_call_plan_of_its_recording():
    def recording(v):
        t = Transcript()
        t.append({"v": v, "role": "developer", "skill": "developer.write_rule", "stage": "rules", "final": True})
        return t
    assert ReplayIndex(recording(1)).call_plan == 1
    assert ReplayIndex(recording(CALL_PLAN)).call_plan == CALL_PLAN
    assert ReplayIndex(Transcript()).call_plan == CALL_PLAN


def test_the_one_call_prompt_sends_the_rule_api_once_for_every_component():
    def prompt(skill, **inputs):
        base = {"guidance": [], "example": None, "retry": None, "criteria": [], "kept": []}
        return render(PROMPTS / f"{skill.replace('.', '_')}.j2", **base, **inputs, facts=FACTS)
    two = COMPONENTS[:2]
    together = prompt("developer.write_rules", components=[c.model_dump(mode="json") for c in two],
                      design=design_context(GDD_DOC, *two))
    alone = [prompt("developer.write_rule", component=c.model_dump(mode="json"), library=None, verified=None,
                    design=design_context(GDD_DOC, c)) for c in two]
    api = FACTS.rule_api
    assert together.count(api) == 1 and all(a.count(api) == 1 for a in alone)
    assert all(c.purpose in together for c in two)
    assert len(together) < 0.65 * sum(map(len, alone))


def _artifact(draft):
    return RuleArtifact(id=draft.id, source=draft.source or "-- reused", params=draft.params, tests=[])


def test_the_visual_reviewer_is_not_asked_again_on_the_same_frames(tmp_path, monkeypatch):
    from genesis.models import VisualVerdict

    frames = []
    for k in range(2):
        frames.append(tmp_path / f"f{k}.png")
        frames[-1].write_bytes(bytes([k]) * 10)
    monkeypatch.setattr("genesis.visual.review_frames", lambda folder: [SimpleNamespace(path=p) for p in frames])
    monkeypatch.setattr("genesis.visual.review_context", lambda *a: "")
    monkeypatch.setattr("genesis.report.replay_widget.read_replay", lambda path: None)
    asked = []

    def visual_review(query, description, paths, context):
        asked.append(paths)
        return VisualVerdict(playable=True, aligned=True, observations=["ok"], problems=[], judged_by="VLM x")

    def run(plan):
        client = SimpleNamespace(call_plan=plan, backend_name=lambda role: "openai/x",
                                 config=SimpleNamespace(for_role=lambda role: SimpleNamespace(model="x")))
        ctx = SimpleNamespace(client=client, analyst=SimpleNamespace(visual_review=visual_review), out_dir=tmp_path)
        nodes, state = Nodes(ctx), {"query": "q", "level": {"description": "d"}}
        nodes._visual(state, GDD_DOC, None)
        nodes._visual(state, GDD_DOC, None)
        frames[0].write_bytes(b"changed")
        nodes._visual(state, GDD_DOC, None)
        frames[0].write_bytes(bytes([0]) * 10)

    run(CALL_PLAN)
    assert len(asked) == 2          # the second look at the same frames reused the first verdict
    asked.clear()
    run(1)
    assert len(asked) == 3          # a replay of a recording that asked again asks again
