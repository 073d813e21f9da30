"""`genesis eval`: a two-task suite (copies of two reference games) evaluated with built-in agents and
a `module:Class` agent defined here; results file, resume, reproducibility, leaderboard."""
import csv
import json
import shutil
from pathlib import Path

import pytest
from browser import AVAILABLE, Browser

from engine.agent import Policy
from engine.agent.observation import visible_enemy_ids
from engine.agent.policy import army_ids, centroid
from genesis.eval import EvalError, evaluate
from genesis.eval.runner import versions
from genesis.eval.stats import kendall_tau_b, wilson
from genesis.validation_cache import level_hash
from genesis.workspace import seed_kb

TASKS = ("FS-F", "MFD")
SEEDS = 2


class Charge(Policy):
    """Every armed unit attack-moves on the visible enemies' centre."""

    def decide(self, sim) -> list[dict]:
        army, enemies = army_ids(sim, self.team), visible_enemy_ids(sim, self.team)
        if not army.size or not enemies.size:
            return []
        x, y = centroid(sim.world, enemies)
        return [{"action": "move_units", "units": army.tolist(), "x": round(x, 1), "y": round(y, 1), "mode": "fight"}]


CHARGE = f"{__name__}:Charge"


def make_suite(root: Path) -> Path:
    """Scenario folders as a batch writes them: self-contained (rule scripts copied in)."""
    kb = seed_kb()
    for tid in TASKS:
        dst = root / tid
        shutil.copytree(kb / "levels" / tid, dst)
        data = json.loads((dst / "level.json").read_text())
        for rule in data.get("rules", []):
            name = Path(rule["script"]).parent.name
            shutil.copytree(kb / "rules" / name, dst / "rules" / name, dirs_exist_ok=True)
            rule["script"] = f"rules/{name}/rule.lua"
        (dst / "level.json").write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return make_suite(tmp_path_factory.mktemp("suite"))


def test_evaluate_resume_and_reproduce(suite, tmp_path):
    first = evaluate(suite, ["idle"], SEEDS, out=tmp_path / "a", workers=2)
    assert first.played == len(TASKS) * SEEDS and not first.failures
    merged = evaluate(suite, ["idle", "reference", CHARGE], SEEDS, out=tmp_path / "a", workers=2)
    assert merged.resumed == len(TASKS) * SEEDS and merged.played == 2 * len(TASKS) * SEEDS

    data = json.loads(merged.results_path.read_text())
    assert data["genesis_version"] == versions()["genesis_version"]
    assert data["engine_version"] == versions()["engine_version"]
    assert {t["id"]: t["level_hash"] for t in data["tasks"]} == {t: level_hash(suite / t / "level.json") for t in TASKS}
    assert "Wilson" in data["ci_method"]
    keys = [(e["task"], e["agent"], e["seed"]) for e in data["episodes"]]
    assert keys == sorted((t, a, s) for t in TASKS for a in ("idle", "reference", CHARGE) for s in range(SEEDS))
    assert all("wall_s" not in e for e in data["episodes"])
    ref = data["agents"]["reference"]
    assert ref["overall"]["win_rate"] == 1.0 and ref["tasks"]["MFD"]["wins"] == SEEDS
    assert data["agents"]["idle"]["tasks"]["MFD"]["win_rate"] == 0.0
    for summary in data["agents"].values():
        s = summary["overall"]
        assert s["episodes"] == len(TASKS) * SEEDS
        assert s["win_rate_ci"][0] <= s["win_rate"] <= s["win_rate_ci"][1]
        assert s["game_time_loss_s"] is None or s["game_time_loss_s"] > 0
    # the competency each task declares in its meta.yaml
    assert set(ref["competencies"]) == {"opponent_modelling", "spatial_temporal_reasoning"}
    assert data["ladder"]["evaluated"] == ["idle", "reference"]
    assert data["ladder"]["tasks"]["MFD"] == {"tau": 1.0, "separates": True,
                                              "scores": data["ladder"]["tasks"]["MFD"]["scores"]}

    again = evaluate(suite, ["idle", "reference", CHARGE], SEEDS, out=tmp_path / "a", workers=2)
    assert again.played == 0 and again.resumed == 3 * len(TASKS) * SEEDS
    fresh = evaluate(suite, ["reference", CHARGE, "idle"], SEEDS, out=tmp_path / "b", workers=2)
    assert fresh.played == 3 * len(TASKS) * SEEDS
    assert fresh.results_path.read_bytes() == merged.results_path.read_bytes()

    with open(tmp_path / "b" / "leaderboard.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    per_agent = 1 + 2 + len(TASKS)          # overall, two competencies, the tasks
    assert len(rows) == 3 * per_agent
    row = next(r for r in rows if r["agent"] == "reference" and r["scope"] == "task" and r["name"] == "MFD")
    assert row["win_rate"] == "1.0" and row["ladder_tau"] == "1.0" and row["episodes"] == str(SEEDS)
    html = (tmp_path / "b" / "leaderboard.html").read_text()
    assert CHARGE in html and "MFD" in html and "opponent modelling" in html


def test_resume_replays_missing_and_refuses_other_versions(suite, tmp_path):
    out = evaluate(suite, ["idle"], SEEDS, out=tmp_path, workers=2)
    data = json.loads(out.results_path.read_text())
    data["episodes"] = data["episodes"][1:]
    out.results_path.write_text(json.dumps(data))
    resumed = evaluate(suite, ["idle"], SEEDS, out=tmp_path, workers=2)
    assert resumed.played == 1 and resumed.resumed == len(TASKS) * SEEDS - 1
    data["engine_version"] = "0" * 32
    out.results_path.write_text(json.dumps(data))
    with pytest.raises(EvalError, match="not of this installation"):
        evaluate(suite, ["idle"], SEEDS, out=tmp_path)
    data = {**data, **versions(), "episodes": [{"task": "MFD", "agent": "idle"}]}
    out.results_path.write_text(json.dumps(data))
    with pytest.raises(EvalError, match="not a results file"):
        evaluate(suite, ["idle"], SEEDS, out=tmp_path)


@pytest.mark.parametrize("spec", ["nobody", "json:loads", "no_such_module_x:Agent", f"{__name__}:Nope"])
def test_bad_agent_specs(suite, tmp_path, spec):
    with pytest.raises(EvalError):
        evaluate(suite, [spec], 1, out=tmp_path)


def test_not_a_suite(tmp_path):
    with pytest.raises(EvalError, match="no scenario folder"):
        evaluate(tmp_path, ["idle"], 1)


def test_wilson_and_kendall():
    assert wilson(0, 2) == (0.0, 0.6576)            # not degenerate at 0 wins, unlike p ± z·se
    low, high = wilson(3, 3)
    assert high == 1.0 and 0.4 < low < 0.5
    assert kendall_tau_b([0, 1, 2, 3], [(0, 0.1), (0, 0.5), (0.5, 0), (1, 2)]) == 1.0
    assert kendall_tau_b([0, 1, 2], [3, 2, 1]) == -1.0
    assert kendall_tau_b([0, 1], [0.0, 0.0]) is None             # every agent scores the same: no order
    assert kendall_tau_b([0, 1, 2], [0, 0, 1]) == round(2 / 6 ** 0.5, 4)


@pytest.mark.skipif(not AVAILABLE, reason="needs chromium (apt-get install chromium) and websocket-client")
def test_leaderboard_sorts_by_a_clicked_column(suite, tmp_path):
    out = evaluate(suite, ["reference", "idle"], 1, out=tmp_path / "eval", workers=2)
    b = Browser(out.leaderboard[0].resolve().as_uri(), tmp_path / "profile", width=1200, height=900)
    try:
        first_agent = "document.querySelector('#agents tbody tr td').textContent.trim()"
        b.wait_for("document.querySelectorAll('#agents tbody tr').length == 2")
        assert b.eval(first_agent) == "reference"            # ranked by overall win rate
        b.click("#agents thead th:nth-child(2)")               # Overall: descending first
        assert b.eval(first_agent) == "reference"
        b.click("#agents thead th:nth-child(2)")               # again: ascending
        assert b.eval(first_agent) == "idle"
        b.click("#tasks thead th:first-child")
        b.click("#tasks thead th:first-child")                 # task ids ascending
        assert b.eval("[...document.querySelectorAll('#tasks tbody tr')].map(r => r.cells[0].textContent)") == list(TASKS)
        b.screenshot(tmp_path / "leaderboard.png")
    finally:
        b.close()


def test_cli_json_and_bad_input(suite, tmp_path):
    from typer.testing import CliRunner

    from genesis.cli import app

    done = CliRunner().invoke(app, ["eval", str(suite), "--agent", "idle", "--seeds", "1", "--out", str(tmp_path),
                                    "--json"])
    assert done.exit_code == 0, done.output
    printed = json.loads(done.stdout)
    assert printed["played"] == len(TASKS) and printed["agents"]["idle"]["overall"]["episodes"] == len(TASKS)
    assert CliRunner().invoke(app, ["eval", str(suite), "--agent", "mystery", "--out", str(tmp_path)]).exit_code == 2
