"""A production race starts with an economy sized from the goal: its units and the tech chain to them."""
from __future__ import annotations

from engine.catalog import load_catalog
from genesis.offline import brief_writer, gdd_writer
from genesis.offline.concepts import read
from genesis.offline.economy import DEFAULT_ENERGY, DEFAULT_METAL, build_chain, goal_cost, starting_resources

START = ["commander", "constructor_bot"]


def test_the_chain_to_a_unit_is_the_factories_and_constructors_on_the_way():
    assert build_chain("light_tank", START) == ("vehicle_plant",)
    assert build_chain("heavy_tank", START) == ("vehicle_plant", "constructor_vehicle", "advanced_vehicle_plant")
    assert build_chain("heavy_assault_bot", START) == ("advanced_bot_lab",)      # the constructor bot builds it
    assert build_chain("light_tank", ["light_bot"]) is None


def test_the_chain_is_paid_once_for_every_unit_of_its_types():
    units = load_catalog().units
    tank = units["heavy_tank"].cost_metal
    chain = sum(units[u].cost_metal for u in ("vehicle_plant", "constructor_vehicle", "advanced_vehicle_plant"))
    assert goal_cost({"heavy_tank": 1}, START)[0] == chain + tank
    assert goal_cost({"heavy_tank": 3}, START)[0] == chain + 3 * tank


def test_a_dear_goal_starts_richer_and_a_cheap_one_keeps_the_defaults():
    assert starting_resources({"light_bot": 2}, START) == (DEFAULT_METAL, DEFAULT_ENERGY)
    metal, energy = starting_resources({"heavy_tank": 3}, START)
    assert metal > 3 * DEFAULT_METAL and energy > 3 * DEFAULT_ENERGY
    richer = starting_resources({"heavy_tank": 3}, START, strength=0.75)
    assert richer[0] > metal and richer[1] > energy


def test_the_race_design_states_its_starting_economy():
    q = "build 3 heavy tanks before minute 8"
    gdd = gdd_writer.design(brief_writer.write_brief(q, read(q)))
    player = gdd.teams[0]
    assert player.metal > DEFAULT_METAL
    assert f"{player.metal:g} metal" in gdd.agent_description and f"{player.energy:g} energy" in gdd.agent_description
