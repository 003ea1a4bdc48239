"""Demo mode survives a kernel restart: the journaled emulator and history finish old tasks."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import mediagen_nb
from mediagen_nb.emulator import start_emulator
from mediagen_nb.history import history

ROOT = Path(__file__).resolve().parent.parent


def test_journal_restores_tasks_into_a_new_emulator(tmp_path: Path) -> None:
    import httpx2

    state = tmp_path / "emu"
    with start_emulator(speed=1.0, state_dir=state) as first:
        headers = {"Authorization": f"Bearer {first.api_key}"}
        body = {"model": "nano-banana", "prompt": "a lighthouse at dusk"}
        created = httpx2.post(f"{first.base_url}/v1/banana/images", json=body, headers=headers)
        task_id = created.json()["id"]
        service_id = first.service_id
    with start_emulator(speed=1.0, state_dir=state) as second:
        assert second.service_id == service_id
        headers = {"Authorization": f"Bearer {second.api_key}"}
        result = httpx2.get(f"{second.base_url}/v1/result/{task_id}", headers=headers)
        assert result.status_code == 200
        assert result.json()["status"] == "processing"
    with start_emulator(speed=1.0, state_dir=tmp_path / "other") as unrelated:
        headers = {"Authorization": f"Bearer {unrelated.api_key}"}
        result = httpx2.get(f"{unrelated.base_url}/v1/result/{task_id}", headers=headers)
        assert result.status_code == 404


def test_journal_restores_assets_and_deletions(tmp_path: Path) -> None:
    import httpx2

    state = tmp_path / "emu"
    kept_url = "https://media.example/face.png"
    with start_emulator(speed=1000.0, state_dir=state) as first:
        headers = {"Authorization": f"Bearer {first.api_key}"}

        def upload(url: str) -> str:
            body = {"assetType": "Image", "url": url, "name": "face"}
            answer = httpx2.post(
                f"{first.base_url}/svcVideo2/asset/upload", json=body, headers=headers
            )
            return str(answer.json()["data"]["assetId"])

        kept, gone = upload(kept_url), upload("https://media.example/old.png")
        deleted = httpx2.delete(f"{first.base_url}/svcVideo2/asset/{gone}", headers=headers)
        assert deleted.json()["code"] == "0"
    with start_emulator(speed=1000.0, state_dir=state) as second:
        headers = {"Authorization": f"Bearer {second.api_key}"}
        detail = httpx2.get(f"{second.base_url}/svcVideo2/asset/{kept}", headers=headers).json()
        assert detail["code"] == "0"
        assert (detail["data"]["url"], detail["data"]["name"]) == (kept_url, "face")
        assert detail["data"]["status"] == "Active"  # its review ended meanwhile
        again = httpx2.get(f"{second.base_url}/svcVideo2/asset/{gone}", headers=headers).json()
        assert again["code"] != "0"
        assert "deleted" in again["msg"]  # a deleted id stays invalid after a restart
    lines = (state / "assets.jsonl").read_text().splitlines()
    assert len(lines) == 2  # compacted: one live asset, one tombstone


KERNEL = textwrap.dedent(
    """
    import asyncio, os, sys
    sys.path.insert(0, {root!r})
    import mediagen_nb
    from mediagen_nb.emulator import _server

    async def main():
        async with mediagen_nb.AsyncClient() as client:
            task = await client.images.create(model="nano-banana", prompt="kept across restarts")
            print(task.id, flush=True)
            os._exit(0)  # the kernel dies before the task ends: no cleanup, no more polls

    _server.DEFAULT_SPEED = 1.0  # slow enough that the task is still running at the kill
    asyncio.run(main())
    """
)


def _run_kernel(env_home: Path) -> str:
    """Run a short-lived "kernel" that creates a task and dies; return the task id."""
    script = KERNEL.format(root=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**_clean_env(), "MEDIAGEN_HOME": str(env_home)},
        check=True,
    )
    return done.stdout.split()[0]


async def test_restarted_kernel_resumes_demo_tasks(tmp_path: Path) -> None:
    task_id = _run_kernel(tmp_path / "mediagen_home")  # the folder the autouse fixture set
    row = history().set_index("task_id").loc[task_id]
    assert row["status"] in ("queued", "processing")

    resumed = await mediagen_nb.resume(wait=True)
    assert [t.id for t in resumed] == [task_id]
    row = history().set_index("task_id").loc[task_id]
    assert row["status"] == "completed"
    with open(row["local_file"], "rb") as handle:  # noqa: ASYNC230 - a tiny local read
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


def _clean_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("MEDIAGEN_")}
