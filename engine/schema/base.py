"""Shared base model: unknown fields are errors so typos in data files never pass silently."""
from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
