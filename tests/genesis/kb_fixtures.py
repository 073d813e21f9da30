"""Small KB fixtures shared by the KB tests (not a test module)."""
from __future__ import annotations

from genesis.kb import Bundle, GddRecord, LessonRecord, LevelMeta, LevelSource, RuleMeta, RuleSource


def rule(rule_id: str, title: str, description: str, concepts: list[str]) -> RuleSource:
    return RuleSource(
        id=rule_id,
        lua=f"-- {title}\nfunction on_start()\n  message('{rule_id}')\nend\n",
        meta=RuleMeta(id=rule_id, title=title, description=description, concepts=concepts,
                      params={"interval": {"type": "number", "default": 30, "description": "seconds between events"}},
                      provenance={"source": "test"}),
        tests={"cases": [{"name": "starts", "expect": "message"}]},
    )


def level(level_id: str, name: str, description: str, map_name: str) -> LevelSource:
    return LevelSource(id=level_id, level={"schema_version": 1, "name": name, "description": description,
                                           "map": {"name": map_name}, "teams": [{"id": 0}, {"id": 1}], "rules": []},
                       meta=LevelMeta(concepts=["test"]))


def bundle(gdd_id: str, title: str, text: str, concepts: list[str], rule_ids: list[str], rules: list[RuleSource],
           level_src: LevelSource | None = None, lessons: list[LessonRecord] | None = None) -> Bundle:
    return Bundle(
        gdd=GddRecord(id=gdd_id, title=title, summary=title, text=text, concepts=concepts, rule_ids=rule_ids,
                      level_id=level_src.id if level_src else None, provenance={"query": text, "batch": 1},
                      gdd={"title": title, "competency": concepts[0]}),
        rules=rules, level=level_src, lessons=lessons or [])


def two_front_bundle() -> Bundle:
    return bundle(
        "mfd_two_fronts", "Hold two fronts",
        "Defend two objectives against enemy waves that attack from the north and from the east at staggered "
        "times; losing either objective loses the game. Spatial and temporal reasoning.",
        ["multi_front_defense", "waves", "objectives"], ["wave_spawner"],
        [rule("wave_spawner", "Wave spawner", "Spawns enemy attack waves at a spawn point every interval and orders them to attack.",
              ["waves", "spawn"])],
        level("mfd_two_fronts", "Two fronts", "Protect both storages.", "two_front_corridor"),
        [LessonRecord(id="spawn_escape", text="Units spawned in a narrow pocket could not leave it.", stage="level", tags=["pathability"])])


def production_bundle() -> Bundle:
    return bundle(
        "tcp_production", "Tank production race",
        "Build an economy of metal extractors and solar collectors, then produce a target composition of tanks "
        "before the deadline. Resource management.",
        ["resource_management", "production", "deadline"], ["composition_goal"],
        [rule("composition_goal", "Composition goal", "Wins when the team owns the target unit counts before the deadline.",
              ["production", "economy"])],
        level("tcp_production", "Production", "Produce the composition.", "open_field"))


def ffa_bundle() -> Bundle:
    return bundle(
        "ffa_four", "Four-way free-for-all",
        "Four sides with equal fixed forces fight each other; ranked by survival and combat efficiency. Opponent modelling.",
        ["free_for_all", "opponent_modelling"], [],
        [], level("ffa_four", "FFA", "Last one standing.", "four_corner_arena"))
