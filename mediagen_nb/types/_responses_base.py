"""The base of every response model (its own module so reply parts and replies share it)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Response(BaseModel):
    """Base of every response model: keep unknown fields, coerce JSON types leniently."""

    model_config = ConfigDict(defer_build=True, extra="allow")
