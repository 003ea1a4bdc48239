"""Shared helpers of the reliability tests: scale knobs, count reports, request bodies, processes.

Every test module reports the counts of its run through :func:`report`; they are printed at
once (visible with ``pytest -s``) and again in the terminal summary (``conftest.py``), so a CI
log always shows tasks, faults injected, retries and rows of the last run.

Scale: ``MEDIAGEN_RELIABILITY_<NAME>`` overrides a default (e.g. ``..._TASKS=2000``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The checkout (child processes get it on ``PYTHONPATH``: the package is not installed)."""
HERE = Path(__file__).resolve().parent

COUNTS: dict[str, dict[str, Any]] = {}
"""Counts reported by each test of this run, by test name (printed in the summary)."""


def scale(name: str, default: int) -> int:
    """``MEDIAGEN_RELIABILITY_<NAME>`` as an int, else ``default``."""
    raw = os.environ.get(f"MEDIAGEN_RELIABILITY_{name.upper()}", "").strip()
    return int(raw) if raw else default


def report(name: str, **counts: Any) -> None:
    """Print one summary line and keep the counts for the terminal summary."""
    COUNTS[name] = counts
    shown = ", ".join(f"{k}={v}" for k, v in counts.items())
    print(f"\n[reliability] {name}: {shown}", flush=True)


@dataclass(frozen=True)
class Order:
    """One create call: which resource, family, model and parameters."""

    kind: str
    family: str
    model: str
    params: Mapping[str, Any]

    def with_prompt(self, text: str) -> dict[str, Any]:
        """The parameters with ``text`` as the prompt (seedance: its text content object)."""
        params = dict(self.params)
        if self.family == "seedance":
            params["content"] = [{"type": "text", "text": text}]
        else:
            params["prompt"] = text
        return params


ORDERS: tuple[Order, ...] = (
    Order("image", "banana", "nano-banana", {"size": "16:9"}),
    Order("image", "image2", "gpt-image-2", {"ratio": "1:1"}),
    Order("video", "sora", "neutralSora2Plus", {"duration": 8}),
    Order("video", "veo", "veo3", {}),
    Order("video", "seedance", "seedance_1_5_pro_480p", {"duration": 4}),
    Order("video", "seedance2", "seedance-2.0", {"duration": 5}),
    Order("video", "vidu", "viduq3-turbo", {"duration": 4}),
    Order("video", "grok", "grok-video", {"duration": 6}),
    Order("video", "starvideos", "starvideos_o3", {"duration": 3}),
    Order("video", "videos", "videos-1", {"duration": 4}),
    Order("video", "sd2_manxue", "sd2_manxue_fast_720p", {"duration": 4}),
)
"""One valid create per family (every family of the catalog)."""


def order(i: int) -> Order:
    """The i-th order of a round-robin over the families."""
    return ORDERS[i % len(ORDERS)]


def is_png(data: bytes) -> bool:
    """True for bytes PIL opens and verifies as a PNG."""
    from io import BytesIO

    from PIL import Image

    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return False
    with Image.open(BytesIO(data)) as picture:
        picture.verify()
        return picture.format == "PNG"


def is_mp4(data: bytes) -> bool:
    """True for bytes PyAV opens as an MP4 with at least one decodable video frame."""
    from io import BytesIO

    import av

    if data[4:8] != b"ftyp":
        return False
    with av.open(BytesIO(data), mode="r") as container:
        frames = container.decode(video=0)
        return next(iter(frames), None) is not None


def child_env(home: Path | None = None, **extra: str) -> dict[str, str]:
    """Environment of a child Python process: the checkout importable, no real-service key."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL", "MEDIAGEN_TEXT_BASE_URL"}
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PYTHONUNBUFFERED"] = "1"
    if home is not None:
        env["MEDIAGEN_HOME"] = str(home)
    env.update(extra)
    return env


@dataclass
class ServedEmulator:
    """An emulator in its own process (``python -m mediagen_nb.cli serve --port 0``)."""

    process: subprocess.Popen[str]
    base_url: str
    text_base_url: str
    api_key: str

    def stop(self) -> None:
        """SIGTERM, then wait (SIGKILL if it does not stop)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def serve_emulator(api_key: str, speed: float, *args: str, timeout: float = 30.0) -> ServedEmulator:
    """Start the CLI emulator in a child process on a free loopback port; return its URLs."""
    command = [
        sys.executable,
        "-m",
        "mediagen_nb.cli",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--api-key",
        api_key,
        "--speed",
        str(speed),
        *args,
    ]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    urls: dict[str, str] = {}
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while len(urls) < 2 and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.match(r"^(base_url|text_base_url):\s+(\S+)", line)
        if found:
            urls[found[1]] = found[2]
    if len(urls) < 2:
        process.kill()
        process.wait(timeout=10)
        raise RuntimeError("the CLI emulator did not start:\n" + "".join(lines))
    return ServedEmulator(process, urls["base_url"], urls["text_base_url"], api_key)
