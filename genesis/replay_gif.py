"""The report's replay GIF, drawn in a simulation worker while the pipeline goes on.

Only the report shows the GIF, so the reference game that the visual review waits for no longer
draws it: the GIF is drawn from that game's replay document by a worker of the generation's pool and
written when the scenario folder is finalized. GIFs are kept in the validation cache by the
replay's bytes and the engine version, so a fast-tracked level reuses its GIF.
"""
from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

from genesis.fileio import atomic_write_bytes
from genesis.simulate import SimPool
from genesis.validation_cache import ValidationCache


def draw_gif(replay_path: str) -> bytes:
    """Runs in the worker process."""
    from engine.replay import Replay
    from engine.replay_media import gif_bytes

    return gif_bytes(Replay.model_validate_json(Path(replay_path).read_bytes()))


class ReplayGif:
    """The GIF of the replay at `replay_path`, from the cache or started in `pool` when constructed."""

    def __init__(self, replay_path: Path, pool: SimPool, cache: ValidationCache):
        self.replay_path, self.pool, self.cache = Path(replay_path), pool, cache
        self.replay = self.replay_path.read_bytes()
        self.blob = cache.gif(self.replay)
        self.pending = None if self.blob is not None else pool.submit(draw_gif, str(self.replay_path))
        self.epoch = pool.epoch

    def write(self, gif_path: Path, timeout_s: float) -> None:
        """Waits for the GIF (drawn here if its worker was lost with a closed pool) and writes it."""
        blob = self.blob
        if blob is None and self.pool.alive(self.epoch):
            try:
                blob = self.pending.get(timeout=timeout_s)
            except mp.TimeoutError:
                self.pool.close()
        if blob is None:
            blob = draw_gif(str(self.replay_path))
        atomic_write_bytes(Path(gif_path), blob)
        if self.blob is None:
            self.cache.put_gif(self.replay, blob)
