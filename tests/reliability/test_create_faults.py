"""Row 2: faults on create POSTs never make a duplicate task and never go unnoticed.

The emulator (real uvicorn on loopback) injects faults on image/video create POSTs only:
a 500/503 *after* it created the task (the ambiguous case: the task exists, the client saw
an error), a dropped connection and a 429 *before* handling (nothing happened). The client
must not retry a create that may have reached the service, so the service holds exactly one
task per successful call plus one per 5xx-after-handling, never more; every call ends with a
``Task`` or a clear exception (no hang, no ``None``); the ledger has a row for every task the
user got. The panels show the same errors in their error area.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.client import (
    APIConnectionError,
    AsyncClient,
    MediagenError,
    RateLimitError,
    ServerError,
    Task,
)
from mediagen_nb.emulator import EmulatorHandle, FaultConfig
from mediagen_nb.history import Ledger
from mediagen_nb.widgets import ImagePanel, Session
from tests._support import KEY
from tests.reliability._reliability import order, report, scale

CREATES = scale("creates", 200)
PANEL_CREATES = scale("panel_creates", 30)
FAULTS = FaultConfig(
    error_rate=0.15, drop_rate=0.10, rate_limit_rate=0.05, seed=424242, apply_to=("create",)
)
CALL_LIMIT_S = 30.0
"""A create call that takes longer than this counts as silence (a hang)."""


pytestmark = pytest.mark.emulator(speed=300.0, api_key=KEY, faults=FAULTS, seed=5)


def _clear(exc: BaseException, path: str) -> bool:
    """An error a user can act on: our exception tree, naming the request and what happened."""
    text = str(exc)
    if isinstance(exc, ServerError | RateLimitError):
        return f"POST {path}" in text and f"HTTP {exc.status_code}" in text
    if isinstance(exc, APIConnectionError):
        return f"POST {path}" in text and "failed" in text
    return False


async def test_create_faults_make_no_duplicates(emulator: EmulatorHandle, tmp_path: Path) -> None:
    store = Ledger(tmp_path / "history")
    async with AsyncClient(
        KEY, emulator.base_url, emulator.text_base_url, recorder=store
    ) as client:
        gate = asyncio.Semaphore(32)

        async def create(i: int) -> Task | BaseException:
            spec = order(i)
            resource = client.images if spec.kind == "image" else client.videos
            async with gate:
                try:
                    return await asyncio.wait_for(
                        resource.create(
                            spec.model, family=spec.family, **spec.with_prompt(f"create {i}")
                        ),
                        CALL_LIMIT_S,
                    )
                except MediagenError as exc:
                    return exc

        outcomes = await asyncio.gather(*(create(i) for i in range(CREATES)))
        retries = client.retries
    tasks = [o for o in outcomes if isinstance(o, Task)]
    errors = [(i, o) for i, o in enumerate(outcomes) if not isinstance(o, Task)]
    kinds = Counter(type(e).__name__ for _i, e in errors)
    state = emulator.state
    injected = state.fault_counts()
    rows = store.items(kind="task")
    report(
        "row 2 create faults",
        creates=CREATES,
        tasks=len(tasks),
        errors=dict(kinds),
        injected_5xx_after_create=injected["error_after_handling"],
        injected_drops=injected["drop"],
        injected_429=injected["rate_limit"],
        created_on_emulator=state.counters["tasks_created"],
        client_retries=retries,
        rows=len(rows),
    )
    assert len(outcomes) == CREATES
    unclear = [
        (i, e) for i, e in errors if not _clear(e, "/api" + FAMILIES[order(i).family].create_path)
    ]
    assert not unclear, unclear[:3]
    assert injected["error_after_handling"] > 0
    assert injected["drop"] > 0
    assert injected["rate_limit"] > 0
    assert kinds["ServerError"] == injected["error_after_handling"]
    assert kinds["APIConnectionError"] == injected["drop"]
    assert kinds["RateLimitError"] == injected["rate_limit"]
    # nothing was sent twice: the service has one task per success plus one per 5xx-after
    assert retries == 0
    assert state.counters["tasks_created"] == len(tasks) + injected["error_after_handling"]
    assert len({t.id for t in tasks}) == len(tasks)
    # every task the user got is in the history, and every ambiguous attempt too
    made = [r for r in rows if r["status"] != "unconfirmed"]
    attempts = [r for r in rows if r["status"] == "unconfirmed"]
    assert {r["key"] for r in made} == {t.id for t in tasks}
    assert len(made) == len(tasks)
    assert len(attempts) == kinds["ServerError"] + kinds["APIConnectionError"]
    for row in attempts:
        assert row["key"].startswith("attempt-")
        assert "may have created" in row["error"]
        assert row["prompt"]
        assert row["request"]["model"] == row["model"]
    store.close()


async def test_ambiguous_create_error_says_the_task_may_exist(emulator: EmulatorHandle) -> None:
    async with AsyncClient(KEY, emulator.base_url, emulator.text_base_url) as client:
        seen: list[MediagenError] = []
        for i in range(60):
            try:
                await client.images.create("nano-banana", prompt=f"ambiguous {i}")
            except (ServerError, APIConnectionError) as error:
                seen.append(error)
            except RateLimitError:
                pass  # refused before handling: nothing was made, nothing to say
    assert seen
    for failure in seen:
        assert "may have created" in str(failure), str(failure)


async def test_panel_shows_every_create_failure(emulator: EmulatorHandle) -> None:
    async with AsyncClient(KEY, emulator.base_url, emulator.text_base_url) as client:
        panel = ImagePanel(session=Session(client=client), model="nano-banana")
        try:
            for i in range(PANEL_CREATES):
                shown_before = len(panel.errors)
                panel.set(prompt=f"panel create {i}")
                job = panel.generate()
                assert job is not None
                await asyncio.wait_for(panel.join(), CALL_LIMIT_S)
                if len(panel.errors) > shown_before:  # the failure is on screen (the notice)
                    assert panel.notice == panel.errors[-1]
            cards = list(panel.cards)
            errors = list(panel.errors)
        finally:
            panel.close()
    injected = emulator.state.fault_counts()
    report(
        "row 2 panel create faults",
        generates=PANEL_CREATES,
        cards=len(cards),
        panel_errors=len(errors),
        created_on_emulator=emulator.state.counters["tasks_created"],
    )
    # never silence: every Generate gave a card or an error line naming what went wrong
    assert len(cards) + len(errors) == PANEL_CREATES
    assert errors
    for line in errors:
        assert "POST /api/v1/banana/images" in line, line
        assert "HTTP 5" in line or "HTTP 429" in line or "failed" in line, line
    assert all(card.status == "completed" for card in cards)
    assert injected["error_after_handling"] + len(cards) == emulator.state.counters["tasks_created"]
