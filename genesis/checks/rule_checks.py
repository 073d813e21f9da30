"""Stage 3 checks on the rule scripts and their tests."""
from __future__ import annotations

import re

from engine.errors import RuleScriptError
from engine.rules.api import RULE_LIB
from engine.rules.sandbox import LuaSandbox
from genesis.checks.context import CheckContext
from genesis.checks.messages import RULE_TEST_CHARS, bounded_join
from genesis.prompt_facts import RULE_API as PROMPT_RULE_API

# Names a rule script may call: the rule API the developer's prompt states.
RULE_API = list(PROMPT_RULE_API)
FORBIDDEN = re.compile(r"\b(os|io|require|load|loadstring|loadfile|dofile|debug|package|collectgarbage|python|"
                       r"string\.dump|getfenv|setfenv|_G|_ENV)\b")
PARAM_READ = re.compile(r"""\bparam\s*\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']""")


def _stub_api() -> dict:
    return {name: (lambda *a, **k: None) for name in RULE_API}


def _strip_comments_and_strings(source: str) -> str:
    source = re.sub(r"--\[(=*)\[.*?\]\1\]", " ", source, flags=re.S)
    source = re.sub(r"--[^\n]*", " ", source)
    source = re.sub(r"\[(=*)\[.*?\]\1\]", '""', source, flags=re.S)
    return re.sub(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", '""', source)


def lua_compiles(ctx: CheckContext) -> tuple[bool, str]:
    failures = []
    for rule in ctx.rules:
        try:
            LuaSandbox(f"{rule.id}.lua", rule.source, _stub_api(), prelude=RULE_LIB)
        except RuleScriptError as exc:
            failures.append(str(exc))
    return not failures, "; ".join(failures) or f"{len(ctx.rules)} scripts compile and load in the sandbox"


def lua_api_only(ctx: CheckContext) -> tuple[bool, str]:
    bad = []
    for rule in ctx.rules:
        found = sorted(set(FORBIDDEN.findall(_strip_comments_and_strings(rule.source))))
        if found:
            bad.append(f"{rule.id}: uses {', '.join(found)}")
    return not bad, "; ".join(bad) or "only the rule API and safe standard libraries are used"


def params_declared(ctx: CheckContext) -> tuple[bool, str]:
    bad = []
    for rule in ctx.rules:
        declared = set((rule.meta.get("params") or {}).keys())
        missing = sorted(set(PARAM_READ.findall(rule.source)) - declared)
        if missing:
            bad.append(f"{rule.id}: reads undeclared params {missing}")
        unknown = sorted(set(rule.params) - declared)
        if unknown:
            bad.append(f"{rule.id}: the level passes params {unknown} the rule does not declare "
                       f"(declared: {sorted(declared)})")
    return not bad, "; ".join(bad) or "every param() read and every param passed is declared"


def rule_tests_pass(ctx: CheckContext) -> tuple[bool, str]:
    if not ctx.rules:
        return True, "the design needs no rule scripts (declarative conditions only)"
    if not ctx.rule_test_results:
        return False, "no rule test results"
    failed, total = [], 0
    for rule_id, results in ctx.rule_test_results.items():
        if not results:
            failed.append(f"{rule_id}: has no tests")
        for r in results:
            total += 1
            if not r["passed"]:
                details = r.get("details", [])
                checks = [d for d in details if d.startswith(("PASS", "FAIL"))]
                held = f"{sum(d.startswith('PASS') for d in checks)} of {len(checks)} expectations held"
                # every failing expectation, how many held, and where each side stood at the end
                why = r.get("error") or bounded_join([d for d in details if d.startswith("FAIL")] + [held]
                                                     + [d for d in details if d.startswith("END ")], RULE_TEST_CHARS)
                failed.append(f"{rule_id}/{r['name']}: {why or 'failed'}")
    return not failed, "; ".join(failed) or f"{total} rule tests pass in simulation"


CHECKS = {"lua_compiles": lua_compiles, "lua_api_only": lua_api_only, "params_declared": params_declared,
          "rule_tests_pass": rule_tests_pass}
