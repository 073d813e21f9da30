"""The rule library (engine/rules/rule_lib.lua): the shared helpers every rule sandbox predefines as
`lib`, their results, and that they run under the script's own limits."""
import pytest

from engine.errors import RuleScriptError
from engine.rules.api import RULE_LIB
from engine.rules.sandbox import LuaSandbox

SPAWNS = {"north": (10.0, 2.0)}


def spawn_point(name):
    if name not in SPAWNS:
        raise ValueError(f"no spawn named {name!r}")
    return SPAWNS[name]


def make(source, **api):
    base = {"spawn_point": spawn_point, "map_size": lambda: (32, 24)}
    return LuaSandbox("rule.lua", source, {**base, **api}, prelude=RULE_LIB, instruction_budget=200_000)


@pytest.mark.parametrize("arg,expected", [
    ('"north"', [10.0, 2.0]), ("{3, 4}", [3, 4]), ("{x = 5, y = 6}", [5, 6]),
    ('"nowhere"', None), ("{40, 4}", None), ("{-1, 4}", None), ("7", None),
])
def test_point_resolves_spawn_names_and_coordinates_and_rejects_what_is_off_the_map(arg, expected):
    sb = make(f"function f() local x, y = lib.point({arg}); if x then return {{x, y}} end end")
    assert sb.call("f") == expected


def test_label_list_and_composition():
    sb = make("""
function f()
  local c = lib.composition({tank = 2, bot = 3})
  local l = lib.composition({{type = "a", count = 2.7}, "b"})
  return lib.label({1, 2}) .. "|" .. lib.label("north") .. "|" .. #lib.list(nil) .. #lib.list(5) .. #lib.list({1, 2})
      .. "|" .. c[1][1] .. c[1][2] .. c[2][1] .. c[2][2] .. "|" .. l[1][1] .. l[1][2] .. l[2][1] .. l[2][2]
      .. "|" .. lib.composition("tank")[1][2]
end""")
    # table keys come out sorted so runs are deterministic; counts are floored
    assert sb.call("f") == "1,2|north|012|bot3tank2|a2b1|1"


def test_target_position_prefers_a_tagged_unit_then_the_fallback_then_the_centre():
    tagged = {"hq": [{"x": 7.0, "y": 8.0}]}
    sb = make("function f(tag, fb) return {lib.target_position(tag, 1, fb)} end",
              units=lambda team, spec: tagged.get(spec["tag"], []))
    assert sb.call("f", "hq", "north") == [7.0, 8.0]
    assert sb.call("f", "gone", "north") == [10.0, 2.0]
    assert sb.call("f", "gone", "nowhere") == [16, 12]


def test_spawn_groups_spawns_each_group_and_skips_empty_ones():
    calls = []

    def spawn(team, kind, x, y, count, tag):
        calls.append((team, kind, count, tag))
        return [len(calls) * 10 + i for i in range(int(count))]

    sb = make('function f() return #lib.spawn_groups(1, {{"a", 2}, {"b", 0}, {"c", 1}}, 3, 4, "raid") end', spawn=spawn)
    assert sb.call("f") == 3
    assert calls == [(1, "a", 2, "raid"), (1, "c", 1, "raid")]


def test_helpers_count_against_the_scripts_instruction_budget():
    # a script that loops through a library helper forever is stopped like any runaway script
    sb = make("function f() while true do lib.list(1) end end")
    with pytest.raises(RuleScriptError, match="instruction budget exceeded") as info:
        sb.call("f")
    assert info.value.line == 1  # the script's line, not a line inside the library


def test_the_library_opens_no_escape_route():
    sb = make("function f() return type(os), type(io), type(require), type(load), type(debug) end")
    assert sb.call("f") == ("nil", "nil", "nil", "nil", "nil")


def test_a_script_may_shadow_a_helper_without_breaking_the_others():
    sb = make("local function point() return 1, 1 end\nfunction f() return point(), lib.label({3, 4}) end")
    assert sb.call("f") == (1, "3,4")
