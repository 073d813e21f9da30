"""Command line: `python -m engine run|bench|schema|ruletest ...`.

Exit status of `run`: 0 the game ended normally, 1 it was ended by a rule-script error (printed on
stderr), 2 bad input. Bad input never shows a traceback: a one-line cause goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import EngineError, clean_text


def _policy(name: str, team: int):
    if name == "idle":
        return None  # an agent team without a policy gives no orders
    try:
        from engine.agent.policies import make_policy
    except ImportError:
        raise EngineError(f"unknown policy {name!r} (available: idle)") from None
    try:
        return make_policy(name, team=team)
    except (KeyError, ValueError) as err:   # the message names the policy and the known ones: said once
        raise EngineError(str(err.args[0]) if err.args else f"unknown policy {name!r}") from None


def _parse_agents(specs: list[str]) -> dict[int, str]:
    out: dict[int, str] = {}
    for spec in specs:
        team, sep, name = spec.partition("=")
        if not sep or not team.strip().isdigit() or not name.strip():
            raise EngineError(f"--agent expects TEAM=POLICY (e.g. 0=idle), got {spec!r}")
        out[int(team)] = name.strip()
    return out


def cmd_run(args: argparse.Namespace) -> int:
    from engine import Simulation, load_level

    level = load_level(args.level)
    agents = _parse_agents(args.agent or [])
    team_ids = {t.id for t in level.config.teams}
    for team in agents:
        if team not in team_ids:
            raise EngineError(f"--agent: level has no team {team} (teams: {sorted(team_ids)})")
    policies = {t: p for t, p in ((t, _policy(n, t)) for t, n in agents.items()) if p is not None}
    sim = Simulation(level, seed=args.seed, policies=policies)
    recorder = None
    if args.frames or args.gif:
        from engine.replay import ReplayRecorder

        recorder = ReplayRecorder(sim)
    while not sim.done:
        if recorder:
            recorder.observe(sim)
        sim.step()
    result = sim.result
    if recorder:
        from engine.replay_media import write_frames, write_gif

        replay = recorder.finish(sim, result)
        if args.frames:
            write_frames(replay, args.frames)
        if args.gif:
            write_gif(replay, args.gif)
    if args.trace:
        result.write_trace(args.trace)
    if args.json:
        print(json.dumps(result.to_dict(with_trace=False), indent=2, default=str))
    else:
        print(result.summary())
    if result.ended_by == "error":
        print(f"error: {clean_text(result.error)}", file=sys.stderr)
        return 1
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from engine.bench import run_bench, sandbox_kill_latencies

    figures = {**run_bench(quick=args.quick), **sandbox_kill_latencies()}
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for k, v in figures.items():
            print(f"{k}: {v}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from engine.schema import LevelConfig

    print(json.dumps(LevelConfig.model_json_schema(), indent=2))
    return 0


def _seed(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= seed < 2**63:
        raise argparse.ArgumentTypeError(f"must be in [0, 2**63), got {seed}")
    return seed


def _error(err: BaseException) -> int:
    """Bad input: print its cause (first lines, control characters escaped) and return 2."""
    lines = str(err).splitlines() or [type(err).__name__]
    shown = [clean_text(line) for line in lines[:20]]
    if len(lines) > 20:
        shown.append(f"... and {len(lines) - 20} more line(s)")
    print("error: " + "\n".join(shown), file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "ruletest":
        from engine.ruletest import main as ruletest_main

        return ruletest_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m engine", description="Genesis RTS engine (headless).")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a level headless and print the result")
    run.add_argument("level", type=Path)
    run.add_argument("--seed", type=_seed, default=0)
    run.add_argument("--agent", action="append", metavar="TEAM=POLICY", help="policy for an agent team (idle, ...)")
    run.add_argument("--frames", type=Path, help="save PNG frames (regular and at key events, with frames.json) here")
    run.add_argument("--gif", type=Path, help="save an animated GIF replay, dense around key events")
    run.add_argument("--trace", type=Path, help="write the JSONL trace here")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.set_defaults(fn=cmd_run)
    bench = sub.add_parser("bench", help="print simulator benchmark figures")
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--quick", action="store_true", help="shorter runs (rougher figures)")
    bench.set_defaults(fn=cmd_bench)
    sub.add_parser("schema", help="print the LevelConfig JSON schema").set_defaults(fn=cmd_schema)
    sub.add_parser("ruletest", help="run a rule folder's tests (see engine.ruletest)")
    args = parser.parse_args(argv)
    try:
        return args.fn(args)
    except (EngineError, OSError) as err:
        return _error(err)
    except RecursionError:
        return _error(EngineError("input nested too deeply"))


if __name__ == "__main__":
    sys.exit(main())
