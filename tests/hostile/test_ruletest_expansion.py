"""Issue 30, item 9: a small test.yaml must not stand for hours of simulation. YAML aliases, many
tests or long `until`s are refused up front with one line (exit 2), before anything runs."""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import yaml

from engine.ruletest import MAX_TEST_SECONDS, MAX_TESTS, load_tests
from tests.hostile.test_corpus import HOST, ruletest

LEVEL = {k: v for k, v in json.loads((HOST / "level.json").read_text()).items() if k != "rules"}


def folder_with(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "rule"
    folder.mkdir()
    shutil.copy(HOST / "ok.lua", folder / "rule.lua")
    shutil.copy(HOST / "map.json", folder / "map.json")
    (folder / "test.yaml").write_text(text)
    return folder


def alias_bomb() -> str:
    """~1 KB of YAML: nine levels of ten aliases, 10^9 tests of a 20 s level once expanded."""
    level = json.dumps({**LEVEL, "switches": {"time_limit": 20}})
    lines = [f"t0: &t0 {{name: x, level: {level}, expect: []}}"]
    for i in range(1, 10):
        lines.append(f"t{i}: &t{i} [" + ", ".join([f"*t{i - 1}"] * 10) + "]")
    lines.append("tests: [" + ", ".join(["*t9"] * 10) + "]")
    return "\n".join(lines) + "\n"


def refused(tmp_path: Path, text: str, words: str) -> None:
    started = time.monotonic()
    code, report, err = ruletest([str(folder_with(tmp_path, text))])
    (result,) = next(iter(report.values()))
    assert code == 2 and not result["passed"] and words in result["error"], result["error"]
    assert "\n" not in result["error"] and "Traceback" not in err
    assert time.monotonic() - started < 5


def test_alias_bomb_is_refused_before_expanding(tmp_path):
    refused(tmp_path, alias_bomb(), "once its aliases are expanded")


def test_recursive_alias_is_refused(tmp_path):
    refused(tmp_path, "tests: &a [*a]\n", "contains it")


def test_too_many_tests_are_refused(tmp_path):
    tests = [{"name": f"t{i}", "level": LEVEL, "until": 1, "expect": []} for i in range(MAX_TESTS + 1)]
    refused(tmp_path, yaml.safe_dump({"tests": tests}), f"at most {MAX_TESTS} per rule")


def test_too_much_simulated_time_is_refused(tmp_path):
    long = {**LEVEL, "switches": {"time_limit": 7200}}
    tests = [{"name": f"t{i}", "level": long, "expect": []} for i in range(2)]
    refused(tmp_path, yaml.safe_dump({"tests": tests}), f"at most {MAX_TEST_SECONDS:g}")


def test_until_counts_instead_of_the_time_limit(tmp_path):
    long = {**LEVEL, "switches": {"time_limit": 7200}}
    tests = [{"name": f"t{i}", "level": long, "until": 60, "expect": []} for i in range(MAX_TESTS)]
    folder = folder_with(tmp_path, yaml.safe_dump({"tests": tests}))
    assert len(load_tests(folder)) == MAX_TESTS


def test_the_kb_test_files_fit_the_limits():
    for path in sorted(Path(__file__).parents[2].glob("kb/rules/*/test.yaml")):
        assert load_tests(path.parent)
