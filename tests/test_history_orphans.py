"""Chat turns left "started" by a dead kernel are closed as incomplete on resume."""

from __future__ import annotations

import os
from pathlib import Path

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history import Ledger
from mediagen_nb.history._resume import ORPHANED_TURN_ERROR, close_orphaned_turns


def _start_turn(home: Path, key: str, origin: str) -> None:
    writer = Ledger(home, origin=origin)
    writer.record(
        LedgerEvent(
            kind="chat",
            action="started",
            key=key,
            model="gpt-5.4",
            data={"request": {"messages": [{"role": "user", "content": "hi"}]}},
        )
    )
    writer.record(
        LedgerEvent(kind="chat", action="status", key=key, model="gpt-5.4", data={"text": "Hel"})
    )
    writer.close()


def test_turns_of_dead_kernels_are_closed_and_live_ones_kept(tmp_path: Path, dead_pid: int) -> None:
    _start_turn(tmp_path, "turn-dead", f"{dead_pid}-aaaa")
    _start_turn(tmp_path, "turn-live", f"{os.getppid()}-bbbb")  # the pytest parent still runs
    store = Ledger(tmp_path)
    assert close_orphaned_turns(store) == 1
    rows = {item["key"]: item for item in store.items(kind="chat")}
    assert rows["turn-dead"]["status"] == "incomplete"
    assert rows["turn-dead"]["error"] == ORPHANED_TURN_ERROR
    assert rows["turn-live"]["status"] == "started"
    assert close_orphaned_turns(store) == 0  # idempotent
