"""The real client recording into the ledger against the emulator: rows, media, no key, resume."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx2
import pandas as pd
import pytest

import mediagen_nb.history as history_pkg
from mediagen_nb.client import AssetError, AsyncClient
from mediagen_nb.emulator import create_app, start_emulator
from mediagen_nb.history import Ledger, export, history, resume, unfinished

MARKER = "sk-MARKER-3b9e51aa-history-check"
BASE = "http://emulator.test/api"
TEXT = "http://emulator.test/gateway"


@pytest.fixture
def app() -> object:
    return create_app(api_key=MARKER, speed=400.0, seed=7)


def client_for(app: object, recorder: Ledger) -> AsyncClient:
    return AsyncClient(
        api_key=MARKER,
        base_url=BASE,
        text_base_url=TEXT,
        transport=httpx2.ASGITransport(app=app),  # type: ignore[arg-type]
        recorder=recorder,
    )


async def test_session_is_recorded_without_the_key(app: object, tmp_path: Path) -> None:
    store = Ledger(tmp_path / "home")
    async with client_for(app, store) as client:
        image = await client.images.create("gpt-image-2", prompt="a lighthouse at dawn")
        await image.wait(timeout=60)
        reply = await client.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "hello"}]
        )
        info = await client.assets.upload("https://media.test/logo.png", "Image", name="logo")

    row = store.item("task", image.id)
    assert row is not None
    assert row["status"] == "completed"
    assert row["prompt"] == "a lighthouse at dawn"
    assert row["family"] == "image2"
    assert row["service"] == BASE
    assert row["remote_url"] == image.url
    assert row["url_expires"] is not None  # image2 URLs live 24 h (catalog)
    assert row["local_file"] == image.local_path
    assert row["local_file"] is not None
    assert Path(row["local_file"]).stat().st_size > 0  # noqa: ASYNC240 - test check
    assert store.cached_media(image.id) == row["local_file"]

    chats = store.items(kind="chat")
    assert len(chats) == 1
    assert (chats[0]["status"], chats[0]["prompt"]) == ("completed", "hello")
    assert chats[0]["text"] == reply.text
    assert chats[0]["usage"]

    asset = store.item("asset", info.assetId)
    assert asset is not None
    assert asset["prompt"] == "logo"
    assert info.status is None  # the seedance 2.0 upload answer carries only the id
    assert asset["status"] == "submitted"  # so the ledger's default for an upload applies

    frame = history(home=store.home)
    assert set(frame["kind"]) == {"task", "chat", "asset"}
    csv_path = export(tmp_path / "out.csv", home=store.home)
    store.close()

    everything = b"".join(p.read_bytes() for p in store.home.glob("history.sqlite3*"))
    assert MARKER.encode() not in everything
    assert MARKER not in csv_path.read_text()
    conn = sqlite3.connect(store.home / "history.sqlite3")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


async def test_restart_resumes_against_the_emulator(app: object, tmp_path: Path) -> None:
    home = tmp_path / "home"
    dead_kernel = Ledger(home, origin="kernel-that-died")
    async with client_for(app, dead_kernel) as client:
        video = await client.videos.create(
            "seedance_1_5_pro_480p",
            content=[{"type": "text", "text": "a paper boat on a stream"}],
            duration=4,
        )
        image = await client.images.create("nano-banana", prompt="a cat")
    assert {p.task_id for p in unfinished(home)} == {video.id, image.id}

    new_kernel = Ledger(home)
    async with client_for(app, new_kernel) as client:
        resumed = await resume(client, home=home, wait=True)
    assert {t.id for t in resumed} == {video.id, image.id}
    assert unfinished(home) == []
    frame = history_pkg.history(kind="task", home=home)
    assert set(frame["status"]) == {"completed"}
    assert frame["local_file"].map(lambda p: Path(p).is_file()).all()
    completed_at = {  # ledger time of each task's completion event
        e["key"]: e["ts"] for e in new_kernel.events() if e["action"] == "completed"
    }
    expires = dict(zip(frame["task_id"], frame["url_expires"], strict=True))
    video_lifetime = expires[video.id].timestamp() - completed_at[video.id]
    assert video_lifetime == pytest.approx(86_400, abs=1e-3)  # seedance: 1 day from then
    assert pd.isna(expires[image.id])  # banana: the spec states no lifetime
    assert isinstance(frame["time"].iloc[0], pd.Timestamp)


async def test_refused_asset_reads_make_no_rows(tmp_path: Path) -> None:
    store = Ledger(tmp_path / "history")
    with start_emulator(speed=1000.0, api_key="asset-key") as handle:
        async with AsyncClient(
            "asset-key", handle.base_url, handle.text_base_url, recorder=store
        ) as client:
            info = await client.assets.upload("https://media.test/face.png", "Image")
            with pytest.raises(AssetError):
                await client.assets.get("asset-does-not-exist")
            with pytest.raises(AssetError):
                await client.assets.delete("asset-does-not-exist")
    rows = store.items(kind="asset")
    assert [r["key"] for r in rows] == [info.assetId]  # no row named by a path or a bad id
    kept = store.item("asset", info.assetId)
    assert kept is not None
    assert kept["status"] != "failed"
    store.close()
