"""Growing waves: the sizes the escalating_waves rule spawns, the defence that beats them, and how many
waves a fair design can honour.

The sizes mirror the library rule (kb/rules/escalating_waves/rule.lua): wave i has
max(size of wave i-1 + growth, ceil(factor * size of wave i-1)) units."""
from __future__ import annotations

import math

from engine.catalog import load_catalog
from genesis.models import Concepts

MAX_WAVE = 64          # units in one wave a fixed defence of a few dozen units can still be sized to beat
MARGIN = 2.0           # the defence's fighting strength over the waves' summed strength
MIN_WAVES = 2          # growth needs two waves to show


def base_and_growth(factor: float, strength: float = 1.0) -> tuple[int, int]:
    """The first wave's size and the additive step: a multiplying growth starts small (2), an
    additive one at 3 and grows by 2."""
    if factor >= 2:
        return max(1, _scaled(2, strength)), 1
    return max(2, _scaled(3, strength)), 2


def _scaled(n: float, strength: float) -> int:
    v = n * strength
    return math.floor(v + 1e-9) if strength < 1 else math.ceil(v - 1e-9)


def sizes(base: int, growth: int, factor: float, count: int) -> list[int]:
    out = [base]
    for _ in range(count - 1):
        out.append(max(out[-1] + growth, math.ceil(out[-1] * factor - 1e-9)))
    return out


def fair_count(factor: float, count: int) -> int:
    """The most waves (at least MIN_WAVES) of this growth whose largest stays within MAX_WAVE."""
    base, growth = base_and_growth(factor)
    n = count
    while n > MIN_WAVES and sizes(base, growth, factor, n)[-1] > MAX_WAVE:
        n -= 1
    return n


def unfair(c: Concepts) -> str:
    """Why the asked growth cannot be built fairly ("" when it can): its last wave outgrows MAX_WAVE."""
    factor = max(1.0, c.growth_factor or 1.0)
    count = len(c.wave_times) if c.wave_times else (c.waves or 0)
    if count < MIN_WAVES:
        return ""
    base, growth = base_and_growth(factor)
    grown = sizes(base, growth, factor, count)
    if grown[-1] <= MAX_WAVE:
        return ""
    keep = fair_count(factor, count)
    return (f"{count} waves growing {'x' + format(factor, 'g') if factor > 1 else 'by ' + str(growth)} would reach "
            f"{grown[-1]} units in the last wave ({', '.join(map(str, grown))}); no fixed defence is a fair match "
            f"past {MAX_WAVE} a wave, so {keep} waves are played")


def _power(units: dict[str, int]) -> float:
    """Lanchester fighting strength of a group: total hp times total damage per second."""
    cat = load_catalog().units
    hp = sum(n * cat[t].hp for t, n in units.items())
    dps = sum(n * cat[t].weapon.damage / cat[t].weapon.reload for t, n in units.items() if cat[t].weapon)
    return hp * dps


def army_scale(army: dict[str, int], wave_type: str, wave_sizes: list[int]) -> float:
    """How many times each group of `army` must grow to beat every wave in turn with MARGIN: under the
    square law a fight against waves one after another costs their summed strength, and strength
    grows with the square of the group's size."""
    needed = MARGIN * sum(_power({wave_type: n}) for n in wave_sizes)
    return max(1.0, math.sqrt(needed / _power(army)))
