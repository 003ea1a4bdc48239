"""Helpers shared by the classroom gateway tests: a marker-keyed upstream, student clients."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Final

import httpx2

from mediagen_nb.classroom import ClassroomHandle, Upstream
from mediagen_nb.client import AsyncClient
from mediagen_nb.client._config import Secret
from mediagen_nb.emulator import EmulatorHandle

MARKER_KEY: Final = "sk-MARKER-7f3a9c-never-shown"
"""The upstream key in every classroom test: it must never appear in anything served."""
UPSTREAM_SPEED: Final = 100.0


def upstream_of(emulator: EmulatorHandle) -> Upstream:
    """An upstream pointing at ``emulator`` (the gateway does not stop it)."""
    return Upstream(
        emulator.base_url,
        emulator.text_base_url,
        Secret(emulator.api_key),
        kind="emulator",
        speed=emulator.speed,
    )


def student(handle: ClassroomHandle, credential: str) -> AsyncClient:
    """Our own client pointed at the gateway with a student's credential."""
    return AsyncClient(
        api_key=credential,
        base_url=handle.base_url,
        text_base_url=handle.text_base_url,
        recorder=None,
    )


def student_http(handle: ClassroomHandle, name: str) -> httpx2.AsyncClient:
    """A bare HTTP client sending ``name``'s personal code (requests as any tool sends them)."""
    return httpx2.AsyncClient(headers={"authorization": f"Bearer {handle.codes[name]}"})


async def until(check: Callable[[], bool], within: float = 10.0) -> None:
    """Wait (asleep) until ``check()`` is true; AssertionError after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {within} s")
        await asyncio.sleep(0.02)
