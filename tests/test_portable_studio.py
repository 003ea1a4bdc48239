"""The Studio as a browser kernel runs it, simulated on CPython: no Pillow, av, pandas or
uvicorn, no thread can start, ``is_browser()`` true. Image, video, a chat reply stopped
mid-way, an asset uploaded by file to Active, and the History tab with its notice."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest

import mediagen_nb as mg
from mediagen_nb import _platform

BlockedRun = Callable[[Sequence[str], str], str]  # the ``run_without`` fixture

BROWSER_LIKE = """
import asyncio, json, sys, threading

def refuse(self):
    raise RuntimeError("can't start new thread")

threading.Thread.start = refuse
import mediagen_nb._platform as platform
platform.is_browser = lambda: True

import mediagen_nb as mg
from mediagen_nb import _png
from mediagen_nb.widgets import Studio

PNG = _png.encode_rgb(4, 4, [bytes(12)] * 4)


async def until(check, what):
    for _ in range(600):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


async def main():
    studio = Studio()
    images, videos, chat, assets = studio.images, studio.videos, studio.chat, studio.assets
    images.set(prompt="a red fox in snow")
    image = await images.generate()
    videos.set(prompt="a cat on a roof")
    video = await videos.generate()
    chat.send("Write a long story about tea, in many sentences.")
    await until(lambda: len(chat.transcript[-1].text) > 20, "chat text")
    chat.stop()
    await chat.join()
    streamed = chat.transcript[-1]
    assets.upload_file(PNG, "fox.png", "image/png")
    await assets.join()
    await until(lambda: [a.status for a in assets.assets] == ["Active"], "asset Active")
    history = studio.history
    history.set_values(scope="all")
    clip = videos.media[video.id]
    print(json.dumps({
        "mode": images.mode,
        "image": [image.status, images.media[image.id]["mime"]],
        "video": [video.status, clip["mime"], len(clip["data"]) > 1000],
        "chat": [streamed.state, len(streamed.text) > 20],
        "asset": [a.status for a in assets.assets],
        "history": sorted(r["kind"] for r in history.rows),
        "notice": [studio.notice, history.notice],
        "threads": threading.active_count(),
        "loaded": sorted(m for m in ("PIL", "av", "pandas", "uvicorn") if sys.modules.get(m)),
    }))

asyncio.run(main())
"""


def test_the_studio_runs_as_in_a_browser_kernel(run_without: BlockedRun) -> None:
    out = run_without(["PIL", "av", "pandas", "uvicorn"], BROWSER_LIKE)
    found = json.loads(out.strip().splitlines()[-1])
    assert found["mode"] == "demo mode (built-in emulator)"
    assert found["image"] == ["completed", "image/png"]
    assert found["video"] == ["completed", "video/mp4", True]
    assert found["chat"] == ["stopped", True]
    assert found["asset"] == ["Active"]
    assert found["history"] == ["asset", "chat", "task", "task"]
    said, history_said = found["notice"]  # said once: by the Studio, not its History tab
    assert "kept in memory in this browser tab" in said
    assert history_said == ""
    assert found["threads"] == 1
    assert found["loaded"] == []


def test_the_blocking_client_says_to_use_the_async_one_where_no_thread_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_platform, "is_browser", lambda: True)
    _platform.can_start_threads.cache_clear()
    try:
        with pytest.raises(RuntimeError, match=r"use mediagen_nb\.AsyncClient with await"):
            mg.Client(api_key="k", base_url="http://x.test/api", text_base_url="http://x.test/g")
    finally:
        monkeypatch.undo()
        _platform.can_start_threads.cache_clear()
