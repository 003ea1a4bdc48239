"""Shared helpers of the emulator tests: a hand-driven clock, clients, valid bodies."""

from __future__ import annotations

from typing import Any

import httpx2
from starlette.applications import Starlette

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.emulator import FaultConfig, create_app
from tests._support import KEY, FakeClock

# KEY and FakeClock are the suite's (tests/_support.py); emulator tests may take them from here
__all__ = ["KEY", "VALID_BODIES", "FakeClock", "client", "make_app", "path_of"]


def make_app(
    clock: FakeClock | None = None,
    *,
    speed: float = 1.0,
    faults: FaultConfig | None = None,
    seed: int | None = 7,
) -> Starlette:
    """An emulator app with the test key (and a fake clock when given)."""
    return create_app(api_key=KEY, speed=speed, faults=faults, clock=clock, seed=seed)


def client(app: Starlette, *, key: str | None = KEY, prefix: str = "/api") -> httpx2.AsyncClient:
    """An in-process client on the app (``httpx2.ASGITransport``)."""
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url=f"http://emu.test{prefix}",
        headers=headers,
    )


VALID_BODIES: dict[str, dict[str, Any]] = {
    "banana": {"model": "nano-banana", "prompt": "a red bicycle", "size": "16:9"},
    "image2": {"model": "gpt-image-2", "prompt": "a lighthouse", "ratio": "1:1"},
    "sora": {"model": "neutralSora2Plus", "prompt": "waves at dusk", "duration": 8},
    "veo": {"model": "veo3", "prompt": "a fox in snow"},
    "seedance": {
        "model": "seedance_1_5_pro_720p",
        "content": [{"type": "text", "text": "a paper boat on a river"}],
        "duration": 6,
    },
    "seedance2": {"model": "seedance-2.0", "prompt": "city timelapse", "duration": 5},
    "vidu": {"model": "viduq3-turbo", "prompt": "a kite", "duration": 4},
    "grok": {"model": "grok-video", "prompt": "a robot dancing", "duration": 6},
    "starvideos": {"model": "starvideos_o3", "prompt": "a dragon", "duration": 3},
    "videos": {"model": "videos-1", "prompt": "a cup of tea", "duration": 4},
    "sd2_manxue": {"model": "sd2_manxue_fast_720p", "prompt": "desert road", "duration": 4},
}
"""One valid create body per family."""

assert set(VALID_BODIES) == set(FAMILIES)


def path_of(family_id: str) -> str:
    """The create path of a family."""
    return FAMILIES[family_id].create_path
