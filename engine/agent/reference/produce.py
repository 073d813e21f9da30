"""produce: extractors + solar, the factory chain (incl. T2) for a target composition, queue it;
the army guards the base meanwhile."""
from __future__ import annotations

import math
from collections import deque

import numpy as np

from engine.agent.observation import visible_enemy_ids
from engine.agent.reference.strategy import Strategy
from engine.systems.construction import site_free
from engine.world import BUILD


ENERGY_PER_METAL = 9.0   # energy income a builder keeps up per unit of metal income before extractors
MIN_ENERGY = 300.0       # energy stock under which solar comes first
SOLAR_METAL = 100.0      # metal stock a solar collector waits for
GRID, LARGE_GRID = 4, 6  # building sites near home: small / large (size >= 1.5) buildings


class Produce(Strategy):
    """Idle builders build solar collectors and extractors on the nearest free deposits; the shortest
    factory chain to each missing type of `target` is built near home and the units are queued.
    Needs production enabled, builders and resources; otherwise it only defends the base."""

    @classmethod
    def describe(cls) -> dict:
        out = super().describe()
        out["behaviour"] += (
            f" Spending: each idle builder (the commander included) first builds a solar collector while the "
            f"team's energy income is under {ENERGY_PER_METAL:g}x its metal income or its energy under "
            f"{MIN_ENERGY:g} (once it has {SOLAR_METAL:g} metal), else a metal extractor on the free deposit "
            f"nearest to it, while the team has fewer than `extractors` and the deposit lies within "
            f"expand_radius of home (it never expands farther); then the next building of the factory chain. "
            f"Buildings (other than extractors) go on a {GRID}-tile grid centred on home ({LARGE_GRID} tiles for "
            f"factories and other large buildings): of the grid ring nearest home that has a free site (its whole "
            f"footprint on open ground with no building on it, not taken earlier), the site nearest the builder; "
            f"`target` may name any buildable type (turrets too). Factories queue the missing units; all spending "
            f"streams, so when income falls short every builder slows down equally.")
        return out

    name = "produce"
    params = {"target": "{unit type: count} composition to own (built through the tech tree); required: without "
                        "it the strategy builds nothing, not even extractors, and only defends",
              "defend_base": "bool (default true): the army guards own buildings while producing",
              "threat_radius": "tiles (default 12): enemies this close to an own building are engaged",
              "extractors": "metal extractors to build (default 6)",
              "expand_radius": "tiles from home within which extractors may be built (default 30)",
              "energy_per_metal": f"energy income kept up per unit of metal income (default {ENERGY_PER_METAL:g}; "
                                  "lower when saving metal matters more than building fast)"}

    def __init__(self, ref):
        super().__init__(ref)
        self.plan_cache: dict[str, list[str]] = {}
        self.sites: set[tuple[int, int]] = set()

    def decide(self, sim) -> list[dict]:
        target: dict[str, int] = dict(self.spec.get("target") or {})
        actions: list[dict] = []
        if self.spec.get("defend_base", True):
            actions += self._defend_base(sim)
        if not sim.production_enabled or not target:
            return actions
        have = self._owned_counts(sim)
        missing = {k: n - have.get(k, 0) for k, n in sorted(target.items()) if have.get(k, 0) < n}
        queued = self._queued_counts(sim)
        builders = self._idle_builders(sim)
        for kind, n in missing.items():
            need = n - queued.get(kind, 0)
            chain = self._chain(sim, kind)
            if not chain:
                continue
            # walk the chain: the first step we do not own yet is what to obtain next
            for step_i, step in enumerate(chain):
                if step == kind and sim.world.types.is_building[sim.world.types.index[kind]]:
                    # a building of the target (a storage) is built by a builder, one at a time
                    if step_i and not self._under_construction(sim, kind):
                        actions += self._obtain(sim, kind, chain[step_i - 1], builders)
                    break
                if step == kind:
                    factories = self._complete_of(sim, chain[step_i - 1]) if step_i else []
                    if need > 0 and factories:
                        # spread over the factories, shortest queue first: one queue would build them in turn
                        by_queue = sorted(factories, key=lambda i: (len(sim.production.queue_of(i)), i))
                        for k, f in enumerate(by_queue[:need]):
                            share = need // len(by_queue[:need]) + (k < need % len(by_queue[:need]))
                            actions.append({"action": "produce", "factory": f, "unit_type": kind, "count": share})
                    break
                if self._complete_of(sim, step):
                    continue
                if self._under_construction(sim, step) or queued.get(step, 0):
                    break
                actions += self._obtain(sim, step, chain[step_i - 1] if step_i else None, builders)
                break
        actions += self._economy(sim, builders)
        return actions

    def _owned_counts(self, sim) -> dict[str, int]:
        w = sim.world
        out: dict[str, int] = {}
        for i in w.select(team=self.ref.team).tolist():
            if w.progress[i] >= 1:
                out[w.type_name(i)] = out.get(w.type_name(i), 0) + 1
        return out

    def _queued_counts(self, sim) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in sim.world.select(team=self.ref.team).tolist():
            for k in sim.production.queue_of(f):
                out[k] = out.get(k, 0) + 1
        return out

    def _complete_of(self, sim, kind: str) -> list[int]:
        w = sim.world
        return [int(i) for i in w.select(team=self.ref.team, type_name=kind) if w.progress[i] >= 1]

    def _under_construction(self, sim, kind: str) -> bool:
        w = sim.world
        ids = w.select(team=self.ref.team, type_name=kind)
        if (w.progress[ids] < 1).any():
            return True
        ti = w.types.index[kind]
        mine = w.select(team=self.ref.team)
        return bool((w.build_type[mine][w.order[mine] == BUILD] == ti).any())

    def _chain(self, sim, kind: str) -> list[str]:
        """Shortest list of types from one we own to `kind`, following `builds` (tech tree). It starts
        from the types we own other than `kind`: owning some of a kind is no way to make more of it."""
        if kind in self.plan_cache:
            return self.plan_cache[kind]
        cat = sim.world.types.catalog.units
        owned = sorted({sim.world.type_name(i) for i in sim.world.select(team=self.ref.team).tolist()} - {kind})
        prev: dict[str, str | None] = {k: None for k in owned}
        queue = deque(owned)
        while queue:
            cur = queue.popleft()
            if cur == kind:
                break
            for nxt in cat[cur].builds:
                if nxt not in prev:
                    prev[nxt] = cur
                    queue.append(nxt)
        chain: list[str] = []
        if kind in prev:
            k: str | None = kind
            while k is not None:
                chain.append(k)
                k = prev[k]
            chain.reverse()
        self.plan_cache[kind] = chain
        return chain

    def _idle_builders(self, sim) -> list[int]:
        """Own mobile builders not currently building (the commander included), but for those a
        role owns."""
        w = sim.world
        out = []
        for i in w.select(team=self.ref.team).tolist():
            if i in self.ref.taken:
                continue
            if w.speed[i] > 0 and w.types.builds[int(w.type[i])] and w.progress[i] >= 1 and w.order[i] != BUILD:
                out.append(i)
        return out

    def _obtain(self, sim, kind: str, maker: str | None, builders: list[int]) -> list[dict]:
        """One order towards owning `kind`: build it (a building) or produce it (a unit)."""
        w = sim.world
        if maker is None:
            return []
        if w.types.is_building[w.types.index[kind]]:
            able = [b for b in builders if kind in w.types.builds[int(w.type[b])]]
            if not able:
                return []
            b = able[0]
            site = self._site(sim, kind, b)
            if site is None:
                return []
            builders.remove(b)
            return [{"action": "build", "builders": [b], "unit_type": kind, "x": site[0], "y": site[1]}]
        factories = self._complete_of(sim, maker)
        if not factories:
            return []
        return [{"action": "produce", "factory": factories[0], "unit_type": kind, "count": 1}]

    def _site(self, sim, kind: str, builder: int) -> tuple[float, float] | None:
        """A free tile centre near home on a 4-tile grid (lanes stay open between buildings)."""
        w = sim.world
        size = float(w.types.size[w.types.index[kind]])
        hx, hy = int(self.ref.home[0]), int(self.ref.home[1])
        step = GRID if size < 1.5 else LARGE_GRID
        best = None
        for r in range(1, 12):
            for dx in range(-r, r + 1):
                for dy in range(-r, r + 1):
                    if max(abs(dx), abs(dy)) != r:
                        continue
                    x, y = hx + dx * step + 0.5, hy + dy * step + 0.5
                    key = (int(x), int(y))
                    if key in self.sites or not w.terrain.on_map(x, y):
                        continue
                    if site_free(w, x, y, size + 1.0):
                        d = math.hypot(x - w.x[builder], y - w.y[builder])
                        if best is None or d < best[0]:
                            best = (d, x, y)
            if best is not None:
                self.sites.add((int(best[1]), int(best[2])))
                return best[1], best[2]
        return None

    def _economy(self, sim, builders: list[int]) -> list[dict]:
        """Idle builders raise extractors on the nearest free deposits, and solar for energy."""
        w = sim.world
        out = []
        metal_rate, energy_rate = sim.economy.income_rates(self.ref.team)
        state = sim.teams[self.ref.team]
        max_extractors = int(self.spec.get("extractors", 6))
        ratio = float(self.spec.get("energy_per_metal", ENERGY_PER_METAL))
        n_extr = len(w.select(team=self.ref.team, type_name="metal_extractor"))
        for b in list(builders):
            options = w.types.builds[int(w.type[b])]
            want_energy = energy_rate < ratio * metal_rate or state.energy < MIN_ENERGY
            if want_energy and "solar_collector" in options and state.metal >= SOLAR_METAL:
                site = self._site(sim, "solar_collector", b)
                if site:
                    out.append({"action": "build", "builders": [b], "unit_type": "solar_collector", "x": site[0], "y": site[1]})
                    builders.remove(b)
                    continue
            if n_extr < max_extractors and "metal_extractor" in options:
                dep = self._free_deposit(sim, b)
                if dep:
                    out.append({"action": "build", "builders": [b], "unit_type": "metal_extractor", "x": dep[0], "y": dep[1]})
                    builders.remove(b)
                    n_extr += 1
        return out

    def _free_deposit(self, sim, builder: int) -> tuple[float, float] | None:
        w = sim.world
        size = float(w.types.size[w.types.index["metal_extractor"]])
        radius = float(self.spec.get("expand_radius", 30))
        # only deposits within reach of home: the nearest to a builder far out may lie beyond it
        cands = [(x + 0.5, y + 0.5) for (x, y) in sorted(w.terrain.deposits)
                 if (x, y) not in self.sites and site_free(w, x + 0.5, y + 0.5, size)
                 and math.hypot(x + 0.5 - self.ref.home[0], y + 0.5 - self.ref.home[1]) <= radius]
        if not cands:
            return None
        bx, by = float(w.x[builder]), float(w.y[builder])
        x, y = min(cands, key=lambda p: (math.hypot(p[0] - bx, p[1] - by), p))
        self.sites.add((int(x), int(y)))
        return x, y

    def _defend_base(self, sim) -> list[dict]:
        """The army guards the base: it meets enemies that come near any own building."""
        w = sim.world
        enemies = visible_enemy_ids(sim, self.ref.team)
        mine = w.select(team=self.ref.team)
        bases = mine[w.speed[mine] == 0]
        radius = float(self.spec.get("threat_radius", 12.0))
        for e in enemies.tolist():
            if bases.size and np.hypot(w.x[bases] - w.x[e], w.y[bases] - w.y[e]).min() < radius:
                return self.ref.send(sim, (float(w.x[e]), float(w.y[e])))
        return self.ref.send(sim, self.ref.home)
