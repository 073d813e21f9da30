"""Idle: the team gives no orders; its armed units still fire at enemies in range."""
from __future__ import annotations


class Idle:
    def __init__(self, spec, team: int):
        self.spec = spec
        self.team = team

    def update(self, sim) -> None:
        return None
