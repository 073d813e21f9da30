"""One end-of-game reading: the engine's result, validation and the certificate agree on who won and
who lost, also when a rule puts the player out while two hostile sides play on to the time limit."""
import json

from engine import Simulation, load_level
from engine.agent.policies import make_policy
from genesis import certificate
from genesis.simulate import SimJob, run_job

IDLE_AI = {"type": "ai", "behaviour": "idle"}


def _level(tmp_path) -> str:
    (tmp_path / "out.lua").write_text('function on_start() at(4, function() lose(0, "caught") end) end')
    rows = ["." * 40 for _ in range(40)]
    (tmp_path / "map.json").write_text(json.dumps({"name": "m", "width": 40, "height": 40, "rows": rows, "spawns": []}))
    level = {"name": "out", "description": "the player is put out; two hostile AI sides remain",
             "map": {"file": "map.json"},
             "teams": [{"id": 0, "name": "player", "units": [{"type": "light_bot", "x": 5, "y": 5}]},
                       {"id": 1, "name": "a", "controller": IDLE_AI, "units": [{"type": "wall", "x": 35, "y": 5}]},
                       {"id": 2, "name": "b", "controller": IDLE_AI, "units": [{"type": "wall", "x": 5, "y": 35}]}],
             "rules": [{"id": "out", "script": "out.lua"}],
             "switches": {"fog_of_war": False, "time_limit": 20}}
    path = tmp_path / "level.json"
    path.write_text(json.dumps(level))
    return str(path)


def test_engine_validation_and_certificate_read_one_outcome(tmp_path):
    path = _level(tmp_path)
    engine = Simulation(load_level(path), seed=0, policies={0: make_policy("reference", team=0, seed=0)}).run()
    validation = run_job(SimJob(path, 0, "reference"))
    cert = certificate.run_cert_job(certificate.CertJob(path, 0, "reference"))

    # the engine plays the other sides' game to its time limit, validation stops once the player is out
    assert (engine.ended_by, validation.ended_by) == ("time_limit", "decided")
    assert engine.losers == validation.losers == [0] and engine.winners == validation.winners == []
    assert engine.outcome(0) == validation.outcome(0) == cert.outcome == "lost" and not cert.won
    assert [e["t"] for e in engine.trace if e["event"] == "lose"] == [4.0]     # one lose event, when it happened
    reused = certificate._from_prior(validation.summary(), 0)
    assert reused.outcome == "lost" and not reused.won
