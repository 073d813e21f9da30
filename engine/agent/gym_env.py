"""A Gymnasium environment over one level: one team's seat, fixed-size observations and actions.

    import gymnasium, engine    # `import engine` registers "genesis/Scenario-v0" (engine/envs.py)
    env = gymnasium.make("genesis/Scenario-v0", level_path="kb/levels/MFD/level.json")

Each `step` is one decision: the action is applied through the agent interface (squads + action
layer -> the simulator's validated order API), then the game advances `decision_interval` seconds.

Observation (Dict, float32, every feature scaled to [0, 1] except resources):
  own      (max_units, 8)  own units by id: present, x/W, y/H, hp/max_hp, category/6, mobile, armed,
                           group (g+1)/n_groups (0 = in no group)
  enemies  (max_units, 8)  visible hostile units, nearest to the own centroid first: present, x/W,
                           y/H, hp/max_hp, category/6, mobile, armed, team/15
  allies   (max_units, 8)  allied units of other teams, same features
  groups   (n_groups, 4)   present, centroid x/W, y/H, state (idle 0, moving 0.5, fighting 1)
  resources (4,)           metal, energy, metal income/s, energy income/s (raw, capped at 1e6)
  time     (1,)            game time / time limit
Action (MultiDiscrete [n_groups, 4, grid, grid, 1 + len(make_types)]):
  group g, command (0 nothing, 1 squad_move: go and fight on contact, 2 squad_move_force,
  3 squad_stop), target cell (cx, cy) of a grid x grid partition of the map (the squad goes to the
  passable point nearest the cell centre), and make: 0 nothing, k -> make_types[k-1]: a unit type
  is produced (count 1) by the own finished factory with the shortest queue; a building is built
  at the target cell's centre by the nearest own builder not already building.
  Own armed mobile units that build nothing join the smallest group automatically (new ones too);
  builders (constructors, the commander) are driven by `make` only.
Reward: +1 when the team wins, -1 when it loses (0 for a draw), plus
  shaping * (damage dealt - damage received during the step) / (total max hp of own start units).
Termination: the game ended (its conditions, rules or time limit). Truncation: `max_game_seconds`
(optional) passed first. `info` holds the clock, the action results and the invalid-action counts.
"""
from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from engine.agent.interface import AgentInterface, FsmSeat
from engine.agent.observation import allied_ids, visible_enemy_ids
from engine.level import Level, load_level
from engine.sim import TICK_HZ, Simulation
from engine.snapshot import CATEGORIES
from engine.world import BUILD

ENV_ID = "genesis/Scenario-v0"
UNIT_FEATURES = 8
COMMANDS = (None, "squad_move", "squad_move_force", "squad_stop")
MAX_RESOURCE = 1e6        # a finite bound keeps the Box well-formed; stores never get near it
STATE_VALUE = {"idle": 0.0, "moving": 0.5, "fighting": 1.0}



def make_types(level: Level) -> list[str]:
    """Every type some unit of the catalog can build or produce (fixed per catalog)."""
    return sorted({t for u in level.catalog.units.values() for t in u.builds})


class RTSEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, level_path: str | Path, team: int = 0, seed: int | None = None, decision_interval: float = 1.0,
                 max_units: int = 64, n_groups: int = 4, grid: int = 16, shaping: float = 0.1,
                 max_game_seconds: float | None = None, render_mode: str | None = "rgb_array", render_size: int = 256):
        self.level = load_level(level_path)
        teams = [t.id for t in self.level.config.teams]
        if team not in teams:
            raise ValueError(f"team {team} is not in the level (teams: {teams})")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.team = team
        self._seed = seed
        self.ticks_per_step = max(1, round(decision_interval * TICK_HZ))
        self.max_units, self.n_groups, self.grid = max_units, n_groups, grid
        self.shaping = shaping
        self.max_game_seconds = max_game_seconds
        self.render_mode = render_mode
        self.render_size = render_size
        self.make_types = make_types(self.level)
        self.groups = [f"g{k}" for k in range(n_groups)]

        unit_box = spaces.Box(0.0, 1.0, (max_units, UNIT_FEATURES), np.float32)
        self.observation_space = spaces.Dict({
            "own": unit_box, "enemies": unit_box, "allies": unit_box,
            "groups": spaces.Box(0.0, 1.0, (n_groups, 4), np.float32),
            "resources": spaces.Box(0.0, MAX_RESOURCE, (4,), np.float32),
            "time": spaces.Box(0.0, 1.0, (1,), np.float32),
        })
        self.action_space = spaces.MultiDiscrete([n_groups, len(COMMANDS), grid, grid, 1 + len(self.make_types)])
        self.sim: Simulation | None = None

    # --- gymnasium API -----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None          # the constructor's seed serves the first reset
        sim_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        iface = AgentInterface(self.team)
        self.bind(Simulation(self.level, seed=sim_seed, policies={self.team: FsmSeat(iface)}), iface)
        return self._observe(), self._info([])

    def bind(self, sim: Simulation, iface: AgentInterface) -> None:
        """Take this team's seat in `sim` (the multi-team env binds one RTSEnv per team to one sim)."""
        self.sim, self.iface = sim, iface
        self.env_errors: Counter[str] = Counter()
        w = self.sim.world
        own = w.select(team=self.team)
        self.hp_scale = max(float(w.max_hp[own].sum()), 1.0)
        self._damage = self._damage_totals()
        self._join_groups()

    def step(self, action):
        if self.sim is None:
            raise RuntimeError("call reset() before step()")
        sim = self.sim
        results = self.act(action)
        sim.step(self.ticks_per_step)
        reward = self.reward()
        terminated = sim.done
        truncated = not terminated and self.max_game_seconds is not None and sim.time >= self.max_game_seconds - 1e-9
        return self._observe(), reward, terminated, truncated, self._info(results)

    def reward(self) -> float:
        """Shaping for the damage traded since the last call, plus +1 / -1 once the game is decided."""
        dealt, received = self._damage_totals()
        reward = self.shaping * ((dealt - self._damage[0]) - (received - self._damage[1])) / self.hp_scale
        self._damage = (dealt, received)
        if self.sim.done:
            res = self.sim.result
            reward += 1.0 if self.team in res.winners else -1.0 if self.team in res.losers and res.winners else 0.0
        return float(reward)

    def act(self, action) -> list[dict]:
        """Apply one action of this team's action space now (no time passes)."""
        self._join_groups()
        self.iface.update(self.sim)
        return self.iface.act(self.sim, self._actions(action)) if not self.sim.done else []

    def render(self):
        if self.render_mode != "rgb_array" or self.sim is None:
            return None
        from engine.render import render_minimap

        viewer = self.team if self.sim.fog else None
        return np.asarray(render_minimap(self.sim.snapshot(), size=self.render_size, viewer=viewer).convert("RGB"))

    # --- actions -----------------------------------------------------------------------------------
    def _cell_centre(self, cx: int, cy: int) -> tuple[float, float]:
        t = self.sim.world.terrain
        return (cx + 0.5) * t.width / self.grid, (cy + 0.5) * t.height / self.grid

    def _actions(self, action) -> list[dict]:
        g, command, cx, cy, make = (int(v) for v in np.asarray(action).reshape(-1))
        x, y = self._cell_centre(cx, cy)
        out: list[dict] = []
        kind = COMMANDS[command]
        if kind == "squad_stop":
            out.append({"action": kind, "squad": self.groups[g]})
        elif kind is not None:
            px, py = self.sim.free_spot(x, y, False)
            out.append({"action": kind, "squad": self.groups[g], "x": round(px, 2), "y": round(py, 2)})
        if make:
            order = self._make(self.make_types[make - 1], x, y)
            if order is not None:
                out.append(order)
        return out

    def _make(self, type_name: str, x: float, y: float) -> dict | None:
        w = self.sim.world
        types = w.types
        mine = w.select(team=self.team)
        able = [int(i) for i in mine if type_name in types.builds[int(w.type[i])] and w.progress[i] >= 1]
        if types.is_building[types.index[type_name]]:
            builders = [i for i in able if w.speed[i] > 0 and w.order[i] != BUILD]
            if not builders:
                self.env_errors["no_builder"] += 1
                return None
            b = min(builders, key=lambda i: (math.hypot(w.x[i] - x, w.y[i] - y), i))
            return {"action": "build", "builders": [b], "unit_type": type_name, "x": round(x, 2), "y": round(y, 2)}
        factories = [i for i in able if w.speed[i] == 0]
        if not factories:
            self.env_errors["no_factory"] += 1
            return None
        f = min(factories, key=lambda i: (len(self.sim.production.queue_of(i)), i))
        return {"action": "produce", "factory": f, "unit_type": type_name, "count": 1}

    def _join_groups(self) -> None:
        """Armed mobile non-builders outside every group join the smallest group."""
        w = self.sim.world
        squads = self.iface.squads
        squads.prune(self.sim)
        mine = w.select(team=self.team)
        fighters = [int(i) for i in mine if w.speed[i] > 0 and w.armed[i] and w.progress[i] >= 1
                    and not w.types.builds[int(w.type[i])] and squads.squad_of(int(i)) is None]
        for u in fighters:
            name = min(self.groups, key=lambda n: (len(squads.squads[n].units) if n in squads.squads else 0, n))
            squads.assign(name, [u])

    # --- observation -------------------------------------------------------------------------------
    def _unit_rows(self, ids: np.ndarray, last: np.ndarray) -> np.ndarray:
        w = self.sim.world
        t = w.terrain
        out = np.zeros((self.max_units, UNIT_FEATURES), np.float32)
        ids = ids[: self.max_units]
        n = ids.size
        if n:
            out[:n, 0] = 1.0
            out[:n, 1] = np.clip(w.x[ids] / t.width, 0, 1)
            out[:n, 2] = np.clip(w.y[ids] / t.height, 0, 1)
            out[:n, 3] = np.clip(w.hp[ids] / w.max_hp[ids], 0, 1)
            out[:n, 4] = w.category[ids] / (len(CATEGORIES) - 1)
            out[:n, 5] = w.speed[ids] > 0
            out[:n, 6] = w.armed[ids]
            out[:n, 7] = last[:n]
        return out

    def _observe(self) -> dict:
        sim, w = self.sim, self.sim.world
        own = w.select(team=self.team)
        group_of = {u: k for k, name in enumerate(self.groups) if name in self.iface.squads.squads
                    for u in self.iface.squads.squads[name].units}
        own_group = np.array([(group_of[int(i)] + 1) / self.n_groups if int(i) in group_of else 0.0
                              for i in own[: self.max_units]])
        enemies = visible_enemy_ids(sim, self.team)
        if enemies.size > self.max_units and own.size:
            cx, cy = float(w.x[own].mean()), float(w.y[own].mean())
            enemies = enemies[np.argsort(np.hypot(w.x[enemies] - cx, w.y[enemies] - cy), kind="stable")]
        enemies = enemies[: self.max_units]
        allies = allied_ids(sim, self.team)[: self.max_units]
        groups = np.zeros((self.n_groups, 4), np.float32)
        for k, name in enumerate(self.groups):
            sq = self.iface.squads.squads.get(name)
            if sq is not None and sq.units:
                ids = np.array(sq.units, dtype=np.int64)
                groups[k] = (1.0, np.clip(w.x[ids].mean() / w.terrain.width, 0, 1),
                             np.clip(w.y[ids].mean() / w.terrain.height, 0, 1), STATE_VALUE[sq.state])
        state = sim.teams[self.team]
        metal_rate, energy_rate = sim.economy.income_rates(self.team)
        return {
            "own": self._unit_rows(own, own_group),
            "enemies": self._unit_rows(enemies, w.team[enemies] / 15.0),
            "allies": self._unit_rows(allies, w.team[allies] / 15.0),
            "groups": groups,
            "resources": np.clip(np.array([state.metal, state.energy, metal_rate, energy_rate], np.float32),
                                 0.0, MAX_RESOURCE),
            "time": np.array([min(sim.time / sim.time_limit, 1.0)], np.float32),
        }

    def _damage_totals(self) -> tuple[float, float]:
        stats = self.sim.teams[self.team].stats
        return float(stats["damage_dealt"]), float(stats["damage_received"])

    def _info(self, results: list[dict]) -> dict:
        counts = self.iface.actions.counts()
        by_code = Counter(counts["invalid_by_code"]) + self.env_errors
        info = {"time": round(self.sim.time, 3), "results": results, "valid": counts["valid"],
                "invalid": sum(by_code.values()), "invalid_by_code": dict(sorted(by_code.items()))}
        if self.sim.done:
            res = self.sim.result
            info.update(winners=list(res.winners), reason=res.reason, ended_by=res.ended_by)
        return info

