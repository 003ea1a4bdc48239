"""The Assets panel follows reviews through ``client.assets.wait_active`` (never its own status
polls) and shows what the client's typed results say: a failed item's reason, each status."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import pytest

from mediagen_nb.client import AssetBatch, AssetNotUsableError, AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.types import AssetFailure, AssetInfo
from mediagen_nb.widgets._asset_panel import AssetPanel
from mediagen_nb.widgets._session import DEMO_TEXT, Session

pytestmark = pytest.mark.emulator(speed=60.0, seed=3)

IMAGE = "https://example.com/people/alice.png"
FACE = "https://example.com/people/face.png"
Update = AssetInfo | AssetFailure
OnUpdate = Callable[[Update], object]


@pytest.fixture
async def session(emulator: EmulatorHandle) -> AsyncIterator[Session]:
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
    ) as client:
        yield Session(client=client, mode_text=DEMO_TEXT)


async def _settle(panel: AssetPanel) -> None:
    await asyncio.wait_for(panel.join(), timeout=30)


def _no_polls_of_its_own(monkeypatch: pytest.MonkeyPatch, session: Session) -> None:
    async def polled(*_args: Any, **_kwargs: Any) -> AssetBatch:
        raise AssertionError("the panel reads review status through wait_active only")

    monkeypatch.setattr(session.client.assets, "status_of", polled)


async def test_every_status_the_panel_shows_came_through_wait_active(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    assets = session.client.assets
    real = assets.wait_active
    calls: list[list[str]] = []
    heard: list[tuple[str, str | None]] = []

    async def counted(asset_ids: Iterable[str], **options: Any) -> dict[str, AssetInfo]:
        ids = list(asset_ids)
        calls.append(ids)
        show: OnUpdate = options.pop("on_update")

        def spy(update: Update) -> None:
            assert isinstance(update, AssetInfo)
            heard.append((update.assetId, update.status))
            show(update)

        return await real(ids, on_update=spy, **options)

    monkeypatch.setattr(assets, "wait_active", counted)
    _no_polls_of_its_own(monkeypatch, session)
    panel = AssetPanel(session=session, poll_interval=0.05)
    panel.set_values(library="sd2", url=f"{IMAGE}\nhttps://example.com/b.png")
    panel.submit()
    await _settle(panel)
    assert panel.errors == []
    ids = [row.asset_id for row in panel.assets]
    assert calls == [ids]  # one wait for the batch
    assert [row.status for row in panel.assets] == ["Active", "Active"]
    assert [(i, "Active") for i in ids] == [h for h in heard if h[1] == "Active"]
    assert panel.status_text == "2 reviewed, 0 in review."


async def test_a_review_the_library_refuses_shows_the_reason_of_its_typed_failed_item(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sd2 status answer lists one asset in ``failedItems``: the real ``wait_active``
    hands the panel that ``AssetFailure`` and the row shows its reason."""
    assets = session.client.assets
    real_status = assets.sd2_status
    panel = AssetPanel(session=session, poll_interval=0.05)

    async def sd2_status(asset_ids: Iterable[str]) -> AssetBatch:
        ids = list(asset_ids)
        refused = [r.asset_id for r in panel.assets if r.url == FACE and r.asset_id in ids]
        rest = [i for i in ids if i not in refused]
        batch = await real_status(rest) if rest else AssetBatch(items=[])
        failed = [AssetFailure(assetId=i, reason="a real person's face") for i in refused]
        return AssetBatch(items=batch.items, failed_items=failed)

    monkeypatch.setattr(assets, "sd2_status", sd2_status)
    _no_polls_of_its_own(monkeypatch, session)
    panel.set_values(library="sd2", url=f"{IMAGE}\n{FACE}")
    panel.submit()
    await _settle(panel)
    assert panel.errors == []
    assert [(r.url, r.status, r.reason) for r in panel.assets] == [
        (IMAGE, "Active", ""),
        (FACE, "Failed", "a real person's face"),
    ]
    assert [a.uri for a in session.active_assets] == [f"asset://{panel.assets[0].asset_id}"]


async def test_a_refused_asset_leaves_the_wait_and_the_others_are_still_followed(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[list[str], float | None, float | None]] = []

    async def scripted(
        asset_ids: Iterable[str],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - wait_active's parameter
        poll_interval: float | None = None,
        on_update: OnUpdate | None = None,
    ) -> dict[str, AssetInfo]:
        ids = list(asset_ids)
        calls.append((ids, timeout, poll_interval))
        assert on_update is not None
        for asset_id in ids:
            on_update(AssetInfo(assetId=asset_id, status="Processing"))
        if len(ids) > 1:
            on_update(AssetFailure(assetId=ids[0], reason="flagged by review"))
            raise AssetNotUsableError(ids[0], "Failed")
        on_update(AssetInfo(assetId=ids[0], status="Active"))
        return {}

    monkeypatch.setattr(session.client.assets, "wait_active", scripted)
    _no_polls_of_its_own(monkeypatch, session)
    panel = AssetPanel(session=session, poll_interval=0.25)
    panel.set_values(library="sd2", url=f"{FACE}\n{IMAGE}")
    panel.submit()
    await _settle(panel)
    assert panel.errors == []
    face, alice = (row.asset_id for row in panel.assets)
    assert calls == [([face, alice], math.inf, 0.25), ([alice], math.inf, 0.25)]
    assert [(r.status, r.reason) for r in panel.assets] == [
        ("Failed", "flagged by review"),
        ("Active", ""),
    ]
    assert panel.status_text == "2 reviewed, 0 in review."


async def test_forgetting_a_row_in_review_restarts_the_wait_without_it(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    cancelled: list[list[str]] = []
    release = asyncio.Event()

    async def held(asset_ids: Iterable[str], **options: Any) -> dict[str, AssetInfo]:
        ids = list(asset_ids)
        calls.append(ids)
        try:
            await release.wait()
        except asyncio.CancelledError:
            cancelled.append(ids)
            raise
        for asset_id in ids:
            options["on_update"](AssetInfo(assetId=asset_id, status="Active"))
        return {}

    monkeypatch.setattr(session.client.assets, "wait_active", held)
    panel = AssetPanel(session=session)
    panel.set_values(library="sd2", url=f"{FACE}\n{IMAGE}")
    await panel.submit()
    for _ in range(100):
        if calls:
            break
        await asyncio.sleep(0.01)
    face, alice = (row.asset_id for row in panel.assets)
    assert calls == [[face, alice]]
    deleting = panel.delete(face, confirm=True)  # sd2 has no delete: the row is forgotten
    assert deleting is not None
    await deleting
    await asyncio.sleep(0)
    release.set()
    await _settle(panel)
    assert panel.errors == []
    assert calls == [[face, alice], [alice]]
    assert cancelled == [[face, alice]]
    assert [(r.asset_id, r.status) for r in panel.assets] == [(alice, "Active")]


async def test_an_asset_deleted_elsewhere_leaves_the_list_and_a_known_failure_keeps_its_row(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``wait_active`` refuses, before reading, an asset this client saw deleted or failed."""
    calls: list[list[str]] = []

    async def refusing(asset_ids: Iterable[str], **options: Any) -> dict[str, AssetInfo]:
        ids = list(asset_ids)
        calls.append(ids)
        if len(ids) == 3:
            raise AssetNotUsableError(ids[0], "deleted")
        if len(ids) == 2:
            raise AssetNotUsableError(ids[0], "Failed")
        options["on_update"](AssetInfo(assetId=ids[0], status="Active"))
        return {}

    monkeypatch.setattr(session.client.assets, "wait_active", refusing)
    panel = AssetPanel(session=session)
    panel.set_values(library="sd2", url=f"{FACE}\n{IMAGE}\nhttps://example.com/c.png")
    panel.submit()
    await _settle(panel)
    assert panel.errors == []
    assert [len(ids) for ids in calls] == [3, 2, 1]
    assert [(r.url, r.status) for r in panel.assets] == [
        (IMAGE, "Failed"),
        ("https://example.com/c.png", "Active"),
    ]
    assert panel.assets[0].reason.startswith("The library's content review did not approve")
