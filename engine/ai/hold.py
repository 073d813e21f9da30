"""Hold: units keep their post (where the behaviour first saw them), fire at what comes in range,
and walk back when something pushed or lured them away."""
from __future__ import annotations

from engine.world import NONE


class Hold:
    def __init__(self, spec, team: int):
        self.spec = spec
        self.team = team
        self.posts: dict[int, tuple[float, float]] = {}

    def update(self, sim) -> None:
        w = sim.world
        for i in w.select(team=self.team).tolist():
            if w.speed[i] <= 0:
                continue
            w.hold[i] = True
            post = self.posts.setdefault(i, (float(w.x[i]), float(w.y[i])))
            if w.order[i] == NONE and w.target[i] < 0 and (w.x[i] - post[0]) ** 2 + (w.y[i] - post[1]) ** 2 > 2.0:
                sim.command(self.team, {"kind": "move", "units": [i], "x": post[0], "y": post[1]})
