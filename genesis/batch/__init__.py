"""Batch generation: many queries, parallel worker processes, resumable, with summary charts."""
from genesis.batch.queries import BatchFileError, BatchQuery, read_queries
from genesis.batch.runner import BatchInterrupted, BatchSettings, run_batch

__all__ = ["BatchFileError", "BatchInterrupted", "BatchQuery", "BatchSettings", "read_queries", "run_batch"]
