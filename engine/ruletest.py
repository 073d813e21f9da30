"""Rule tests: run a rule script inside small levels and check the traces with expectations.

A rule folder (kb/rules/<id>/) holds rule.lua, meta.yaml and test.yaml:

    tests:
      - name: waves arrive from east and north at t=30
        level: {... a complete LevelConfig dict WITHOUT `rules` ...}
        params: {directions: [east, north], times: [30]}
        seed: 0
        until: 240                 # game seconds (optional; default: run to the level's end)
        policies: {0: idle}        # optional; agent teams default to idle
        expect: [ ...expectations (engine.expect)... ]

The harness inserts the rule under test (`{id, script, params}`) into each level, runs it and
evaluates the expectations. `script_path` lets the pipeline test a freshly written script against
an existing test file before it is trusted.

CLI: `python -m engine.ruletest kb/rules/<id> [--script FILE] [--json]`: exit 0 all tests pass, 1 some
fail (a rule-script error fails its test), 2 a rule folder or its test file is unreadable or malformed.
`main(argv)` is what `python -m engine ruletest ...` should call.
"""
from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine.catalog import YAML_LOADER
from engine.errors import EngineError, LevelError, clean_text
from engine.expect import ExpectationResult, as_run_view, evaluate, run_sampled, state_times, validate
from engine.jsonfile import MAX_DEPTH, check_depth, read_text
from engine.schema.level import Switches

MAX_TEST_FILE_BYTES = 1 << 20
MAX_TESTS = 32                  # tests in one test file (the KB's rules have at most a handful)
MAX_TEST_SECONDS = 7200.0       # game seconds all tests of a file simulate together (until, else the time limit)
MAX_YAML_NODES = 1_000_000      # nodes a YAML file may have once its aliases are expanded
LOAD_FAILURE = "load tests"     # the name of the result that stands for an unreadable test file

RULE_FILE, META_FILE, TEST_FILE = "rule.lua", "meta.yaml", "test.yaml"
_TEST_KEYS = {"name", "level", "params", "seed", "until", "policies", "expect"}


@dataclass
class RuleTestResult:
    name: str
    passed: bool
    details: list[str] = field(default_factory=list)
    error: str | None = None
    expectations: list[ExpectationResult] = field(default_factory=list)
    outcome: dict = field(default_factory=dict)
    seconds: float = 0.0
    bad_input: bool = False     # the test's level (or the rule folder) is malformed, not the rule's behaviour

    def to_dict(self) -> dict:
        return {"name": self.name, "passed": self.passed, "details": self.details, "error": self.error,
                "outcome": self.outcome, "seconds": round(self.seconds, 3)}


def load_tests(rule_dir: Path) -> list[dict]:
    """The test cases of a rule folder, checked for form (raises ValueError naming the problem)."""
    path = Path(rule_dir) / TEST_FILE
    data = _load_yaml(path)
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, list) or not tests:
        raise ValueError(f"{path}: needs a non-empty `tests:` list")
    if len(tests) > MAX_TESTS:
        raise ValueError(f"{path}: {len(tests)} tests, at most {MAX_TESTS} per rule")
    for i, case in enumerate(tests):
        where = f"{path}: tests.{i}"
        if not isinstance(case, dict):
            raise ValueError(f"{where}: each test must be a mapping")
        unknown = set(map(str, case)) - _TEST_KEYS
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(_TEST_KEYS)})")
        for key in ("name", "level", "expect"):
            if key not in case:
                raise ValueError(f"{where}: missing `{key}`")
        if not isinstance(case["level"], dict):
            raise ValueError(f"{where}.level: must be a mapping (a level without rules)")
        if "rules" in case["level"]:
            raise ValueError(f"{where}.level: must not list `rules`; the harness inserts the rule under test")
        if not isinstance(case["expect"], list):
            raise ValueError(f"{where}.expect: must be a list of expectations")
        for key, kind in (("params", dict), ("policies", dict)):
            if case.get(key) is not None and not isinstance(case[key], kind):
                raise ValueError(f"{where}.{key}: must be a mapping")
        for j, exp in enumerate(case["expect"]):
            problems = validate(exp)
            if problems:
                raise ValueError(f"{where}.expect.{j}: " + "; ".join(problems))
    seconds = sum(_test_seconds(case) for case in tests)
    if seconds > MAX_TEST_SECONDS:
        raise ValueError(f"{path}: the tests simulate {seconds:g} game seconds together, at most {MAX_TEST_SECONDS:g}")
    return tests


def _test_seconds(case: dict) -> float:
    """Game seconds a test simulates at most: its `until`, capped by (or else) the level's time limit."""
    switches = case["level"].get("switches")
    limit = switches.get("time_limit") if isinstance(switches, dict) else None
    if not _is_seconds(limit):
        limit = Switches.model_fields["time_limit"].default
    until = case.get("until")
    return min(until, limit) if _is_seconds(until) else limit


def _is_seconds(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _load_yaml(path: Path) -> object:
    """A YAML file of the rule folder: size-capped UTF-8, nesting-checked (ValueError otherwise)."""
    try:
        text = read_text(path, path.name, MAX_TEST_FILE_BYTES)
        if _bracket_depth(text) > 2 * MAX_DEPTH:  # PyYAML recurses per level: refuse before parsing
            raise ValueError(f"{path}: nested deeper than {2 * MAX_DEPTH} levels")
        nodes = _expanded_nodes(yaml.compose(text, Loader=YAML_LOADER))
        if nodes > MAX_YAML_NODES:
            raise ValueError(f"{path}: {nodes:.3g} values once its aliases are expanded, at most {MAX_YAML_NODES:,}")
        data = yaml.load(text, Loader=YAML_LOADER)
        check_depth(data, str(path))
    except EngineError as err:
        raise ValueError(str(err)) from None
    except yaml.YAMLError as err:
        raise ValueError(f"{path}: invalid YAML ({type(err).__name__})") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply") from None
    return data


def _expanded_nodes(root: yaml.Node | None) -> int:
    """Nodes of a composed YAML document with every alias expanded, counted once per distinct node
    (a few lines of aliases can stand for billions of values); a recursive alias is refused."""
    sizes: dict[int, int] = {}

    def size(node: yaml.Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            if known < 0:
                raise ValueError("an alias refers to a node that contains it")
            return known
        sizes[id(node)] = -1
        if isinstance(node, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            total = 1 + sum(size(v) for v in node.value)
        else:
            total = 1
        sizes[id(node)] = total
        return total

    return 0 if root is None else size(root)


def _bracket_depth(text: str) -> int:
    """The deepest nesting of [ and { in `text` outside simple quoted strings (an upper estimate)."""
    brackets = re.sub(r"[^\[\]{}]", "", re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", "", text))
    steps = (1 if c in "[{" else -1 for c in brackets)
    return max(itertools.accumulate(steps, initial=0))


def rule_id_of(rule_dir: Path) -> str:
    """The rule id: meta.yaml's `id`, else the folder name."""
    meta_path = Path(rule_dir) / META_FILE
    if meta_path.exists():
        meta = _load_yaml(meta_path)
        if isinstance(meta, dict) and meta.get("id"):
            return str(meta["id"])
    return Path(rule_dir).name


def build_level(case: dict, rule_id: str, script: Path) -> dict:
    """The test's level with the rule under test inserted."""
    level = copy.deepcopy(case["level"])
    level["rules"] = [{"id": rule_id, "script": str(Path(script).resolve()), "params": copy.deepcopy(case.get("params") or {})}]
    return level


def run_rule_test(case: dict, rule_id: str, script: Path, base_dir: Path) -> RuleTestResult:
    """Run one test case; engine errors become a failed result carrying the error text."""
    from engine import Simulation, load_level  # late import: the harness module loads without the simulator

    name = str(case.get("name", "unnamed"))
    started = time.perf_counter()
    try:
        level = load_level(build_level(case, rule_id, script), base_dir=base_dir,
                           rule_roots=[Path(script).resolve().parent])
        seed = int(case.get("seed", 0))
        sim = Simulation(level, seed=seed, policies=_policies(case.get("policies") or {}, seed))
        result, states = run_sampled(sim, case.get("until"), state_times(case["expect"]))
    except Exception as err:  # a broken rule or level must fail its test, not crash the harness
        text = clean_text(f"{type(err).__name__}: {err}", 2000)
        return RuleTestResult(name, False, [f"error: {text}"], error=text, seconds=time.perf_counter() - started,
                              bad_input=isinstance(err, LevelError))
    map_size = (level.map.width, level.map.height)
    view = as_run_view(result)
    view.states = states
    checks = evaluate(case["expect"], view, map_size=map_size)
    outcome = _outcome(result)
    details = [f"{'PASS' if c.passed else 'FAIL'} {c.description} -> {c.detail}" for c in checks]
    details.append(_where(sim))
    error = outcome.get("error")
    if outcome.get("ended_by") == "error":
        details.insert(0, f"run ended by error: {error}")
    passed = all(c.passed for c in checks) and outcome.get("ended_by") != "error"
    return RuleTestResult(name, passed, details, error=error, expectations=checks, outcome=outcome,
                          seconds=time.perf_counter() - started)


END_UNITS = 6     # units listed per team in a test's end line


def _where(sim: Simulation) -> str:
    """"END at 30 s: team 0: 4 units, light_bot (12.5, 3) 100 hp, ...; team 1: none": where every side stood when
    the test's run ended, for a failure that the expectations' counts alone cannot explain."""
    w = sim.world
    parts = []
    for team in sorted({int(t) for t in w.team[: w.count]}):
        ids = w.select(team=team)
        shown = ", ".join(f"{w.type_name(int(i))} ({w.x[i]:.1f}, {w.y[i]:.1f}) {w.hp[i]:.0f} hp" for i in ids[:END_UNITS])
        more = f", and {ids.size - END_UNITS} more" if ids.size > END_UNITS else ""
        parts.append(f"team {team}: " + (f"{ids.size} unit{'s' if ids.size != 1 else ''}, {shown}{more}" if ids.size
                                         else "none"))
    return f"END at {sim.time:g} s: " + "; ".join(parts)


def run_rule_tests(rule_dir: Path, *, script_path: Path | None = None) -> list[RuleTestResult]:
    """Run every test of a rule folder against its rule.lua (or `script_path`)."""
    rule_dir = Path(rule_dir)
    script = Path(script_path) if script_path is not None else rule_dir / RULE_FILE
    try:
        tests = load_tests(rule_dir)
        rule_id = rule_id_of(rule_dir)
    except (OSError, ValueError) as err:
        text = clean_text(err, 2000)
        return [RuleTestResult(LOAD_FAILURE, False, [text], error=text, bad_input=True)]
    return [run_rule_test(case, rule_id, script, rule_dir) for case in tests]


def _policies(spec: dict, seed: int) -> dict[int, Any]:
    """Policies by team from names in test.yaml; `idle` means: give the team no orders."""
    out: dict[int, Any] = {}
    for team, name in spec.items():
        if name in (None, "idle"):
            continue  # an agent team without a policy issues no orders
        from engine.agent.policies import make_policy  # only needed for non-idle policies

        out[int(team)] = make_policy(str(name), team=int(team), seed=seed)
    return out


def _outcome(result: Any) -> dict:
    keys = ("winners", "losers", "reason", "ended_by", "duration", "error", "ranks", "trace_hash")
    return {k: getattr(result, k) for k in keys if hasattr(result, k)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine ruletest", description="Run a rule's tests (test.yaml).")
    parser.add_argument("rule_dirs", nargs="+", type=Path, help="rule folders, e.g. kb/rules/waves_from_directions")
    parser.add_argument("--script", type=Path, default=None, help="test this script instead of the folder's rule.lua")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    args = parser.parse_args(argv)
    if args.script is not None and len(args.rule_dirs) != 1:
        parser.error("--script needs exactly one rule folder")
    all_passed, bad_input, report = True, False, {}
    for rule_dir in args.rule_dirs:
        results = run_rule_tests(rule_dir, script_path=args.script)
        all_passed &= all(r.passed for r in results)
        bad_input |= any(r.bad_input for r in results)
        report[str(rule_dir)] = [r.to_dict() for r in results]
        if not args.json:
            for r in results:
                print(f"{'PASS' if r.passed else 'FAIL'} {rule_dir.name}: {r.name} ({r.seconds:.2f}s)")
                for line in r.details:
                    if not r.passed or line.startswith("FAIL"):
                        print(f"    {line}")
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    if bad_input:
        print("error: a rule folder's test file or a test's level is malformed (see above)", file=sys.stderr)
        return 2
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main())
