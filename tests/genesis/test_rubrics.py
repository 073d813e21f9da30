"""Rubrics as versioned data: update, history, diff, rollback; atomic and locked."""
from __future__ import annotations

import multiprocessing as mp
import shutil
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from genesis import fileio, rubric_cli, rubric_store
from genesis.rubric_cli import app as rubric_app
from genesis.rubric_store import Change, RubricError
from genesis.workspace import seed_rubrics

REPO_RUBRICS = seed_rubrics()
PATHABILITY = Change(op="add", id="pathability", kind="check:pathability",
                     text="Every mobile unit has a feasible path away from its spawn.",
                     rationale="units spawned on an island could never reach the fight")


@pytest.fixture()
def root(tmp_path) -> Path:
    copy = tmp_path / "rubrics"
    copy.mkdir()
    for stage in rubric_store.STAGES:
        shutil.copy(REPO_RUBRICS / f"{stage}.yaml", copy)
    return copy


def test_shipped_rubrics_use_the_checker_names():
    rubrics = rubric_store.load_all(REPO_RUBRICS)
    kinds = {stage: [c.kind for c in r.criteria] for stage, r in rubrics.items()}
    assert kinds["gdd"] == ["check:schema", "check:requirements_covered", "check:win_loss_defined",
                            "check:rules_known_api", "check:variation_declared", "judged", "judged"]
    assert kinds["rules"] == ["check:lua_compiles", "check:lua_api_only", "check:rule_tests_pass", "check:params_declared"]
    assert kinds["level"] == ["check:schema", "check:placement", "check:terminates", "check:outcome_discrimination",
                              "check:reference_wins",
                              "check:determinism", "check:requirement_evidence", "check:visual", "check:certificate",
                              "check:difficulty"]
    # the retrospective is meant to discover pathability (paper's R4 example)
    assert rubrics["level"].version == 1 and rubrics["level"].criterion("pathability") is None
    assert rubrics["gdd"].criterion("competency_clear").check_name is None
    assert rubrics["rules"].criterion("lua_compiles").check_name == "lua_compiles"


def test_update_history_diff_rollback(root):
    old_text = (root / "level.yaml").read_text()
    new = rubric_store.apply_update("level", [PATHABILITY], root=root)
    assert new.version == 2
    added = new.criterion("pathability")
    assert added.origin == "evolved" and added.version == 2 and added.mandatory
    assert added.history[0].rationale.startswith("units spawned on an island")
    assert (root / "history" / "level.v1.yaml").read_text() == old_text  # snapshot of the old version
    assert rubric_store.load("level", root=root).version == 2
    assert rubric_store.load("level", 1, root=root).criterion("pathability") is None
    assert rubric_store.versions("level", root=root) == [1, 2]

    modified = rubric_store.apply_update("level", [Change(op="modify", id="placement", text="Units are on passable tiles.",
                                                          rationale="shorter")], root=root)
    placement = modified.criterion("placement")
    assert placement.version == 3 and placement.history[-1].change == "modified text"
    assert placement.history[-1].rationale == "shorter"

    text = rubric_store.diff("level", 1, 2, root=root)
    assert "+- id: pathability" in text and "--- level.v1.yaml" in text
    assert rubric_store.diff("level", 2, 2, root=root) == ""

    back = rubric_store.rollback("level", 1, root=root)
    assert back.version == 4 and back.criterion("pathability") is None
    assert back.criterion("placement").text.startswith("Every start unit")
    assert rubric_store.versions("level", root=root) == [1, 2, 3, 4]
    infos = rubric_store.history("level", root=root)
    assert [i.version for i in infos] == [1, 2, 3, 4]
    assert infos[1].changes == ["add pathability"] and "island" in infos[1].rationale
    assert infos[3].changes == ["rollback to v1"]


def test_invalid_update_writes_nothing(root):
    before = (root / "gdd.yaml").read_text()
    bad = [Change(op="add", id="extra", kind="judged", text="ok", rationale="fine"),
           Change(op="remove", id="does_not_exist", rationale="oops")]
    with pytest.raises(RubricError, match="does_not_exist"):
        rubric_store.apply_update("gdd", bad, root=root)
    with pytest.raises(RubricError, match="already exists"):
        rubric_store.apply_update("gdd", [Change(op="add", id="schema", kind="judged", text="x", rationale="r")], root=root)
    with pytest.raises(RubricError, match="changes nothing"):
        rubric_store.apply_update("gdd", [Change(op="modify", id="schema", mandatory=True, rationale="r")], root=root)
    with pytest.raises(RubricError, match="unknown stage"):
        rubric_store.load("nope", root=root)
    assert (root / "gdd.yaml").read_text() == before
    assert not (root / "history").exists()


def test_interrupted_write_keeps_the_old_version(root, monkeypatch):
    real_replace, calls = fileio.os.replace, []

    def replace_fails_on_rubric(src, dst):
        calls.append(dst)
        if Path(dst).name == "level.yaml":
            raise OSError("simulated crash")
        real_replace(src, dst)

    monkeypatch.setattr(fileio.os, "replace", replace_fails_on_rubric)
    with pytest.raises(OSError):
        rubric_store.apply_update("level", [PATHABILITY], root=root)
    monkeypatch.undo()
    assert rubric_store.load("level", root=root).version == 1
    assert sorted(p.name for p in root.iterdir() if p.is_file()) == [".lock", "gdd.yaml", "level.yaml", "rules.yaml"]
    assert rubric_store.apply_update("level", [PATHABILITY], root=root).version == 2  # retry works


def _add_criterion(root: str, n: int) -> None:
    rubric_store.apply_update("gdd", [Change(op="add", id=f"extra_{n}", kind="judged", text=f"criterion {n}",
                                               rationale=f"worker {n}")], root=root)


def test_concurrent_updates_all_land(root):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_add_criterion, args=(str(root), n)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    final = rubric_store.load("gdd", root=root)
    assert final.version == 4
    assert {f"extra_{n}" for n in range(3)} <= {c.id for c in final.criteria}
    assert rubric_store.versions("gdd", root=root) == [1, 2, 3, 4]


def test_cli(root, monkeypatch):
    monkeypatch.setenv("GENESIS_RUBRICS_DIR", str(root))
    monkeypatch.setattr(rubric_cli, "out", Console(width=250))  # keep table cells on one line
    rubric_store.apply_update("level", [PATHABILITY], root=root)
    runner = CliRunner()
    res = runner.invoke(rubric_app, ["history", "level"])
    assert res.exit_code == 0 and "add pathability" in res.output
    res = runner.invoke(rubric_app, ["diff", "level", "1", "2"])
    assert res.exit_code == 0 and "pathability" in res.output
    res = runner.invoke(rubric_app, ["rollback", "level", "1"])
    assert res.exit_code == 0 and "v3" in res.output
    assert yaml.safe_load((root / "level.yaml").read_text())["version"] == 3
    res = runner.invoke(rubric_app, ["diff", "level", "1", "9"])
    assert res.exit_code == 2 and "no version 9" in res.output and "Traceback" not in res.output
    res = runner.invoke(rubric_app, ["show", "gdd"])
    assert res.exit_code == 0 and "competency_clear" in res.output


def test_retrospective_cannot_weaken_a_human_criterion(root):
    before = (root / "level.yaml").read_text()
    for change in (Change(op="remove", id="schema", rationale="fewer checks"),
                   Change(op="modify", id="schema", kind="judged", rationale="let the model judge"),
                   Change(op="modify", id="schema", mandatory=False, rationale="optional")):
        with pytest.raises(RubricError, match="only a human"):
            rubric_store.apply_update("level", [change], root=root)
    assert (root / "level.yaml").read_text() == before
    assert rubric_store.apply_update("level", [Change(op="remove", id="schema", rationale="by hand")],
                                     author="human", root=root).criterion("schema") is None
