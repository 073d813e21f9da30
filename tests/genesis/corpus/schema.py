"""The corpus entries: a request and the properties its generated artifacts must show."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

CORPUS_FILE = Path(__file__).with_name("requests.yaml")

Side = Literal["n", "ne", "e", "se", "s", "sw", "w", "nw", "left", "right"]
Domain = Literal["air", "ground"]
RankMetric = Literal["damage_efficiency", "survival", "kills", "damage_dealt", "hp_remaining"]


class Expected(BaseModel):
    """What the request asks for; every field left at its default is not checked."""

    model_config = ConfigDict(extra="forbid")

    playable: bool | None = Field(True, description="the scenario must be playable (null: either way, e.g. an "
                                                    "impossible ask that may be refused or built without it)")
    refused: bool = Field(False, description="no scenario may be built: the request is refused with a reason")
    not_honoured_contains: list[str] = Field(default_factory=list, description="each text appears in what the "
                                             "brief reports as not honoured (or in its refusal)")
    teams: int | None = Field(None, description="number of sides (alliance groups), the player's included")
    team_size: int | None = Field(None, description="players (level teams) on each side")
    ffa: bool | None = Field(None, description="no team is allied with another")
    directions: list[Side] = Field(default_factory=list, description="enemy attack sides in order of first attack")
    direction_times: list[float] = Field(default_factory=list, description="time of each side's first attack")
    fronts: int | None = Field(None, description="number of distinct sides enemy attacks come from")
    waves: int | None = Field(None, description="number of enemy attack waves")
    wave_sizes: Literal["increasing"] | None = Field(None, description="wave sizes strictly increase")
    growth_factor: float | None = Field(None, description="each wave at least this many times the previous one")
    probe_main: bool = Field(False, description="a small probe, then a main attack at least main_factor its size")
    main_factor: float | None = Field(None, description="main attack size over probe size (default 2)")
    enemy_attack_times: list[float] = Field(default_factory=list, description="times enemy attacks start")
    attack_domains: list[Domain] = Field(default_factory=list, description="domain of each timed attack, aligned "
                                         "with enemy_attack_times")
    hold_time: float | None = Field(None, description="seconds the zone must be held to win")
    deadline: float | None = Field(None, description="game second by which the goal must be reached")
    time_limit: float | None = Field(None, description="game length: the game is decided at this second")
    raid_domain: Domain | None = Field(None, description="raiders are aircraft or ground units")
    raid_target: str | None = Field(None, description="unit type the raids go for")
    raid_interval: float | None = Field(None, description="seconds between raids")
    random_side: bool = Field(False, description="raids come from more than one side")
    protect_unit: str | None = Field(None, description="unit type whose loss loses the game")
    objectives: int | None = Field(None, description="number of objectives the player protects")
    objective_type: str | None = Field(None, description="unit type of the protected objectives")
    produce: dict[str, int] = Field(default_factory=dict, description="unit type -> count the player must produce")
    destroy_type: str | None = Field(None, description="unit type the player must destroy to win")
    ranking: RankMetric | None = Field(None, description="what the free-for-all ranks teams by")
    production: bool | None = Field(None, description="production switch")
    fog: bool | None = Field(None, description="fog of war switch")
    scouting: bool = Field(False, description="the attack comes from a side the player did not scout")

    @model_validator(mode="after")
    def _consistent(self) -> Expected:
        if self.direction_times and len(self.direction_times) != len(self.directions):
            raise ValueError("direction_times must be aligned with directions")
        if self.attack_domains and len(self.attack_domains) != len(self.enemy_attack_times):
            raise ValueError("attack_domains must be aligned with enemy_attack_times")
        if self.refused:
            self.playable = False
        return self


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    family: str
    request: str = Field(min_length=1)
    expect: Expected


def load_corpus(path: Path = CORPUS_FILE) -> list[Entry]:
    entries = [Entry.model_validate(raw) for raw in yaml.safe_load(path.read_text(encoding="utf-8"))]
    ids = [e.id for e in entries]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate corpus ids: {duplicates}")
    return entries
