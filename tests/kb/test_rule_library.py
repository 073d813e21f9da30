"""The seed rule library (kb/rules/<id>/): complete, sandbox-safe, documented, and verified.

Static checks (files, meta, declared params, forbidden globals), a dry run of every script against a
recording stub of the rule API (fast, no simulator), and the rule's own test.yaml run in the real
simulator through engine.ruletest.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from engine.ruletest import load_tests, run_rule_tests
from engine.rules.api import RULE_LIB
from engine.rules.sandbox import LuaSandbox
from genesis.workspace import seed_kb

RULES_DIR = seed_kb() / "rules"
RULE_DIRS = sorted(p for p in RULES_DIR.iterdir() if p.is_dir())
RULE_IDS = [p.name for p in RULE_DIRS]
PROVIDES = {"spawn", "termination", "economy", "setup", "objective"}
PARAM_TYPES = {"int", "float", "string", "list", "table", "bool"}
API = ("every", "at", "on_area_entered", "time", "units", "unit", "visible", "resources", "param", "map_size",
       "spawn_point", "teams", "random", "random_int", "spawn", "order", "give_resources",
       "set_controller", "win", "lose", "message", "mark", "log")
FORBIDDEN = ("os", "io", "load", "loadfile", "dofile", "require", "debug", "package",
             "collectgarbage", "string.dump", "math.random", "math.randomseed", "python")
PARAM_READ = re.compile(r"""\bparam\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']""")


def _strip_comments_and_strings(source: str) -> str:
    source = re.sub(r"--[^\n]*", "", source)
    return re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', source)


def _meta(rule_dir: Path) -> dict:
    return yaml.safe_load((rule_dir / "meta.yaml").read_text())


def test_library_has_at_least_13_rules():
    assert len(RULE_IDS) >= 13, RULE_IDS


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_rule_folder_is_complete_and_meta_is_well_formed(rule_dir):
    for name in ("rule.lua", "meta.yaml", "test.yaml"):
        assert (rule_dir / name).is_file(), f"{rule_dir.name} lacks {name}"
    meta = _meta(rule_dir)
    assert meta["id"] == rule_dir.name
    assert meta["title"] and len(meta["description"]) > 40
    assert meta["provides"] in PROVIDES
    assert meta["concepts"] and all(isinstance(c, str) for c in meta["concepts"])
    for name, spec in meta["params"].items():
        assert spec["type"] in PARAM_TYPES, f"{name}: type {spec['type']!r}"
        assert "default" in spec and spec.get("description"), f"{name}: needs default and description"


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_every_param_read_is_declared_and_every_declared_param_is_read(rule_dir):
    source = (rule_dir / "rule.lua").read_text()
    read = set(PARAM_READ.findall(source))
    declared = set(_meta(rule_dir)["params"])
    assert read - declared == set(), f"read but not declared in meta.yaml: {sorted(read - declared)}"
    assert declared - read == set(), f"declared but never read: {sorted(declared - read)}"
    assert len(re.findall(r"\bparam\(", source)) == len(PARAM_READ.findall(source)), "param() with a non-literal name"


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_script_uses_no_forbidden_globals(rule_dir):
    code = _strip_comments_and_strings((rule_dir / "rule.lua").read_text())
    for name in FORBIDDEN:
        pattern = r"(?<![\w.])" + re.escape(name) + r"\b"
        assert not re.search(pattern, code), f"{rule_dir.name} uses {name}"


class StubAPI:
    """Records what a script does; positions and counts are plausible so every branch can run."""

    SPAWNS = {"north": (24.5, 5.5), "south": (24.5, 43.5), "east": (43.5, 24.5), "west": (5.5, 24.5),
              "center": (24.5, 24.5), "ne": (42.5, 6.5), "nw": (6.5, 6.5), "se": (42.5, 42.5), "sw": (6.5, 42.5)}

    def __init__(self, params: dict):
        self.params = params
        self.read: set[str] = set()
        self.timers: list[tuple[str, float, object]] = []
        self.calls: list[str] = []
        self.next_id = 100
        self.now = 0.0

    def functions(self) -> dict:
        def record(name, result=None):
            def fn(*args):
                self.calls.append(name)
                return result
            return fn

        def param(name, default=None):
            self.read.add(name)
            return self.params.get(name, default)

        def spawn(team, kind, x, y, count=1, tag=None):
            self.calls.append("spawn")
            ids = list(range(self.next_id, self.next_id + int(count)))
            self.next_id += int(count)
            return ids

        def spawn_point(name):
            if name not in self.SPAWNS:
                raise KeyError(f"unknown spawn point {name!r}")
            return self.SPAWNS[name]

        def units(team, flt=None):
            return [{"id": 1 + team, "type": "metal_storage", "team": team, "x": 20.0, "y": 20.0, "hp": 100.0,
                     "tag": "objective", "category": "economy"}]

        return {
            "param": param, "spawn": spawn, "spawn_point": spawn_point, "units": units,
            "every": lambda s, fn: self.timers.append(("every", float(s), fn)),
            "at": lambda s, fn: self.timers.append(("at", float(s), fn)),
            "on_area_entered": lambda *a: self.timers.append(("area", 0.0, a[3])),
            "time": lambda: self.now, "unit": lambda i: None, "visible": lambda team, i: True,
            "map_size": lambda: (48, 48),
            "teams": lambda: [0, 1], "random": lambda: 0.5, "random_int": lambda a, b: int(a),
            "resources": lambda team: {"metal": 10.0, "energy": 5.0},
            "income": lambda team: {"metal": 2.0, "energy": 25.0},
            "order": record("order"), "give_resources": record("give_resources"),
            "set_controller": record("set_controller"), "win": record("win"), "lose": record("lose"),
            "message": record("message"), "mark": record("mark"), "log": record("log"),
        }


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_script_compiles_in_the_sandbox_and_dry_runs_with_defaults(rule_dir):
    stub = StubAPI({})
    box = LuaSandbox(rule_dir.name, (rule_dir / "rule.lua").read_text(), stub.functions(), prelude=RULE_LIB)
    assert box.has("on_start")
    box.call("on_start")
    # fire every timer once, later ones after earlier ones, like the engine would
    for _ in range(3):
        pending, stub.timers = sorted(stub.timers, key=lambda t: t[1]), []
        for kind, when, fn in pending:
            stub.now = when
            # an area trigger's callback receives the unit that entered
            box.call(fn, *([{"id": 2, "type": "light_bot", "team": 0, "x": 20.0, "y": 20.0, "hp": 100.0,
                             "tag": "vip", "category": "combat"}] if kind == "area" else []))
    if box.has("on_unit_destroyed"):
        box.call("on_unit_destroyed", {"id": 1, "type": "metal_storage", "team": 0, "x": 20.0, "y": 20.0,
                                       "hp": 0.0, "tag": "objective", "category": "economy"})
    assert stub.read <= set(_meta(rule_dir)["params"])
    assert "log" in stub.calls, "every rule logs what it does"


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_rule_has_tests_with_expectations(rule_dir):
    tests = load_tests(rule_dir)
    assert tests and all(case["expect"] for case in tests)


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_rule_passes_its_own_tests_in_the_simulator(rule_dir):
    results = run_rule_tests(rule_dir)
    failed = [f"{r.name}:\n    " + "\n    ".join(r.details) for r in results if not r.passed]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=RULE_IDS)
def test_rule_tests_catch_a_script_that_does_nothing(rule_dir, tmp_path):
    noop = tmp_path / "noop.lua"
    noop.write_text("function on_start() end\n")
    results = run_rule_tests(rule_dir, script_path=noop)
    assert any(not r.passed for r in results), f"{rule_dir.name}: its tests pass even without the rule"


# --- the harness itself ---------------------------------------------------------------------------
WAVES = RULES_DIR / "waves_from_directions"


def test_harness_runs_are_deterministic():
    first = [r.outcome["trace_hash"] for r in run_rule_tests(WAVES)]
    second = [r.outcome["trace_hash"] for r in run_rule_tests(WAVES)]
    assert first == second and all(first)


def test_harness_turns_a_script_error_into_a_failed_test(tmp_path):
    broken = tmp_path / "broken.lua"
    broken.write_text('function on_start()\n  error("boom")\nend\n')
    results = run_rule_tests(WAVES, script_path=broken)
    assert results and all(not r.passed for r in results)
    assert all("boom" in (r.error or "") for r in results)


def test_harness_rejects_a_test_level_that_lists_rules(tmp_path):
    case = yaml.safe_load((WAVES / "test.yaml").read_text())["tests"][0]
    case["level"]["rules"] = [{"id": "x", "script": "x.lua"}]
    (tmp_path / "test.yaml").write_text(yaml.safe_dump({"tests": [case]}))
    [result] = run_rule_tests(tmp_path, script_path=WAVES / "rule.lua")
    assert not result.passed and "must not list `rules`" in result.error


def test_cli_exit_status_and_json(tmp_path, capsys):
    from engine.ruletest import main

    assert main([str(RULES_DIR / "survive_timer_win"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    [(folder, results)] = report.items()
    assert folder.endswith("survive_timer_win") and all(r["passed"] for r in results)
    noop = tmp_path / "noop.lua"
    noop.write_text("function on_start() end\n")
    assert main([str(RULES_DIR / "survive_timer_win"), "--script", str(noop)]) == 1
    assert "FAIL survive_timer_win" in capsys.readouterr().out
