"""Row 4: a chat stream cut mid-way keeps its partial text, marked incomplete, and can be retried.

A real uvicorn emulator cuts every streamed reply in its middle third (``stream_cut_rate=1``:
the connection closes without the terminator). The ``ChatPanel`` is driven from Python over
both protocols. Pass when the history has the turn with exactly the partial text the user saw,
status ``incomplete`` and the reason; the panel shows the error (turn state, error text, plain
text fallback) and offers Retry; and once the network is healthy again Retry replaces the cut
reply with the whole one, the cut turn staying in the history.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle, FaultConfig
from mediagen_nb.emulator._faults import FaultInjector
from mediagen_nb.history import Ledger
from mediagen_nb.widgets import ChatPanel, Session
from tests._support import KEY
from tests.reliability._reliability import report

QUESTION = "Explain in detail how tides work, with a list of the main causes"
MODELS = {"chat_completions": "gpt-5.4", "messages": "claude-sonnet-4-6"}


pytestmark = pytest.mark.emulator(
    speed=50.0, api_key=KEY, faults=FaultConfig(stream_cut_rate=1.0, seed=99, apply_to=()), seed=3
)


@pytest.fixture
async def ledger_and_client(
    emulator: EmulatorHandle, tmp_path: Path
) -> AsyncIterator[tuple[Ledger, AsyncClient]]:
    store = Ledger(tmp_path / "history")
    async with AsyncClient(
        KEY, emulator.base_url, emulator.text_base_url, recorder=store
    ) as client:
        yield store, client
    store.close()


@pytest.mark.parametrize("protocol", list(MODELS))
async def test_cut_reply_is_kept_incomplete_and_retry_completes(
    protocol: str, emulator: EmulatorHandle, ledger_and_client: tuple[Ledger, AsyncClient]
) -> None:
    store, client = ledger_and_client
    panel = ChatPanel(session=Session(client=client), model=MODELS[protocol])
    panel.set(protocol=protocol)
    assert panel.values["protocol"] == protocol  # the model is served on both
    try:
        panel.send(QUESTION)
        await panel.join()
        cut = panel.transcript[-1]
        rows = store.items(kind="chat")
        synced = panel.get_state()  # what the front end is given
        state = synced["turns"][-1]
        streaming = synced["live_index"]
        fallback = panel.text_summary()
        retry_offered = synced["can_retry"]

        cuts = emulator.state.fault_counts()["stream_cut"]
        # the network heals; Retry sends the same request again
        emulator.state.faults = FaultInjector(FaultConfig())
        panel.retry()
        await panel.join()
        final = panel.transcript[-1]
        after = store.items(kind="chat")
        roles = [t.role for t in panel.transcript]
    finally:
        panel.close()
    report(
        f"row 4 stream cut ({protocol})",
        partial_chars=len(cut.text),
        full_chars=len(final.text),
        cuts_injected=cuts,
        history_rows=len(after),
        statuses=sorted(r["status"] for r in after),
    )
    # the panel shows the error and offers Retry
    assert cuts == 1
    assert cut.role == "assistant"
    assert cut.state == "error"
    assert cut.error
    assert state["state"] == "error"
    assert state["error"] == cut.error
    assert state["text"] == cut.text  # the partial text stays on the turn
    assert streaming == -1
    assert "[error]" in fallback
    assert cut.error in fallback
    assert retry_offered
    assert panel.errors == []  # a cut is shown on the turn, not as a crash
    # the history holds the partial text, marked incomplete, with the reason
    assert len(rows) == 1
    row = rows[0]
    assert row["status"] == "incomplete"
    assert row["text"] == cut.text
    assert len(cut.text) > 0
    assert row["error"]
    assert row["model"] == MODELS[protocol]
    # Retry replaced the cut reply with a whole one; the cut turn stays in the history
    assert roles == ["user", "assistant"]
    assert final.state == "complete"
    assert final.text.startswith(cut.text)
    assert len(final.text) > len(cut.text)
    assert sorted(r["status"] for r in after) == ["completed", "incomplete"]
    done = next(r for r in after if r["status"] == "completed")
    assert done["text"] == final.text
    assert final.turn_id == done["key"]


async def test_cut_turn_names_its_history_row(
    ledger_and_client: tuple[Ledger, AsyncClient],
) -> None:
    store, client = ledger_and_client
    panel = ChatPanel(session=Session(client=client), model=MODELS["chat_completions"])
    try:
        panel.send(QUESTION)
        await panel.join()
    finally:
        panel.close()
    rows = store.items(kind="chat")
    assert len(rows) == 1
    assert panel.transcript[-1].turn_id == rows[0]["key"]
