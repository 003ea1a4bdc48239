"""Compare in the Studio, driven from Python: the switch and the model picker, the union form
with what each model receives instead, one Generate making one live card per model under one
sweep_id, Keep this one, Copy as code that reproduces the row's cells in a fresh interpreter,
the History panel's comparison filter, and chat compare streaming at once with one Stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import mediagen_nb as mg
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.widgets import ChatPanel, HistoryPanel, ImagePanel, VideoPanel
from mediagen_nb.widgets._session import Session
from tests._classroom_helpers import until

pytestmark = pytest.mark.emulator(speed=600.0)
FOUR = ["nano-banana", "nano-banana-pro", "gpt-image-2", "nano-banana-2"]


@pytest.fixture
async def session(emulator: EmulatorHandle) -> AsyncIterator[Session]:
    client = AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url)
    yield Session(client=client)
    await client.aclose()


def row_of(panel: ImagePanel, key: str) -> dict[str, object]:
    return next(r for r in panel.compare_form if r["key"] == key)


def test_the_switch_picks_two_to_four_models_and_says_the_rule(session: Session) -> None:
    panel = ImagePanel(session=session, model="gpt-image-2")
    panel.handle_action({"action": "compare", "on": True})
    assert panel.compare
    assert panel.compare_models[0] == "gpt-image-2"
    assert len(panel.compare_models) == 2
    for wrong, rule in (
        (["nano-banana"], "pick 2 to 4 models, not 1"),
        ([*FOUR, "nano-banana-pro-stable"], "pick 2 to 4 models, not 5"),
        (["nano-banana", "neutralSora2Plus"], "'neutralSora2Plus' is not a image model"),
    ):
        panel.handle_action({"action": "compare_models", "models": wrong})
        assert rule in panel.errors[-1]
        assert panel.compare_models[0] == "gpt-image-2"  # unchanged
    panel.handle_action({"action": "compare", "on": False})
    assert not panel.compare


def test_the_union_form_says_who_takes_each_control_and_what_a_model_gets_instead(
    session: Session,
) -> None:
    panel = ImagePanel(session=session)
    panel.set_compare(True, ["nano-banana", "gpt-image-2"])
    keys = [r["key"] for r in panel.compare_form]
    assert keys == ["prompt", "resolution", "ratio", "references", "quality", "size"]
    assert row_of(panel, "prompt")["applies"] == ["Nano Banana", "GPT Image 2"]
    assert row_of(panel, "quality")["applies"] == ["GPT Image 2"]  # the other has none
    assert row_of(panel, "resolution")["notes"] == []
    assert not panel.can_generate  # no prompt yet
    assert panel.generate() is None
    assert panel.attempted
    assert any("prompt" in p for p in panel.compare_problems)
    panel.set_compare_values(prompt="a fox", resolution="4k")
    assert row_of(panel, "resolution")["notes"] == [
        "nano-banana: 1K (it has no 4K)",
        "gpt-image-2: 1K (it has no 4K)",
    ]
    assert panel.compare_problems == []
    assert panel.can_generate
    assert panel.hint == ""
    plan = panel.compare_plan()
    assert [c.body["resolution"] for c in plan.cells] == ["1k", "1k"]
    panel.set_compare_models(["nano-banana", "nano-banana-pro"])
    assert row_of(panel, "resolution")["notes"] == ["nano-banana: 1K (it has no 4K)"]
    assert [c.body["resolution"] for c in panel.compare_plan().cells] == ["1k", "4k"]
    assert panel.compare_values["prompt"] == "a fox"  # kept across a change of models
    assert panel.compare_code.endswith(".fitted()\n")


def test_a_video_union_fits_the_ratio_to_what_each_family_takes(session: Session) -> None:
    panel = VideoPanel(session=session)
    panel.set_compare(True, ["neutralSora2Plus", "viduq3-pro"])
    assert "ratio" in [r["key"] for r in panel.compare_form]
    assert row_of(panel, "ratio")["applies"] == ["Sora 2 Plus"]  # Vidu takes no ratio
    assert "duration" in [r["key"] for r in panel.compare_form]


async def test_one_generate_makes_one_live_card_per_model_under_one_sweep_id(
    session: Session, emulator: EmulatorHandle
) -> None:
    panel = ImagePanel(session=session)
    panel.set_compare(True, FOUR)
    panel.set_compare_values(prompt="a lighthouse at dusk", resolution="4k")
    started = time.perf_counter()
    job = panel.generate()
    live = time.perf_counter() - started
    assert job is not None
    cards = panel.compare_rows[0]["cards"]
    print(f"\n4 compare cards on the page {live * 1000:.1f} ms after Generate")
    assert [c["title"] for c in cards] == [
        "Nano Banana",
        "Nano Banana Pro",
        "GPT Image 2",
        "Nano Banana 2",
    ]
    assert [c["status"] for c in cards] == ["sending"] * 4  # live before any request
    assert emulator.state.counters["tasks_created"] == 0
    await job
    await panel.join()
    row = panel.compare_rows[0]
    assert [c["status"] for c in row["cards"]] == ["completed"] * 4
    assert all(panel.media[c["id"]]["data"] for c in row["cards"])
    assert "resolution 1K (it has no 4K)" in row["cards"][0]["note"]
    sweep_id = row["sweep_id"]
    history = mg.history(sweep_id=sweep_id)
    assert sorted(history["task_id"]) == sorted(c["task_id"] for c in row["cards"])
    assert sorted(history["model"]) == sorted(FOUR)
    assert panel.cards == []  # the gallery holds ordinary results only


async def test_keep_this_one_turns_a_card_into_an_ordinary_result(session: Session) -> None:
    panel = ImagePanel(session=session)
    panel.set_compare(True, ["nano-banana", "gpt-image-2"])
    panel.set_compare_values(prompt="an owl")
    job = panel.generate()
    assert job is not None
    await job
    await panel.join()
    kept_id = panel.compare_rows[0]["cards"][1]["id"]
    panel.handle_action({"action": "keep", "id": kept_id})
    assert [r["id"] for r in panel.results] == [kept_id]
    assert panel.results[0]["title"] == "GPT Image 2"
    assert panel.results[0]["status"] == "completed"
    assert [c["title"] for c in panel.compare_rows[0]["cards"]] == ["Nano Banana"]
    assert kept_id in panel.media  # its picture stays
    panel.handle_action({"action": "keep", "id": panel.compare_rows[0]["cards"][0]["id"]})
    assert panel.compare_rows == []
    assert len(panel.results) == 2


async def test_cancel_on_one_compare_card_leaves_the_others_running(
    session: Session,
) -> None:
    panel = VideoPanel(session=session)
    panel.set_compare(True, ["neutralSora2Plus", "neutralSora2Pro"])
    panel.set_compare_values(prompt="waves", duration=12)
    job = panel.generate()
    assert job is not None
    await until(lambda: all(c.task_id for c in panel.compare_cards[0]))
    first, second = panel.compare_cards[0]
    panel.handle_action({"action": "cancel", "id": first.id})
    await job
    await panel.join()
    assert (first.status, second.status) == ("cancelled", "completed")


def test_copy_as_code_reproduces_the_rows_cells_in_a_fresh_interpreter(
    session: Session, emulator: EmulatorHandle, tmp_path: Path
) -> None:
    panel = ImagePanel(session=session)
    panel.set_compare(True, ["nano-banana", "nano-banana-pro", "gpt-image-2"])
    panel.set_compare_values(prompt="a red kite", resolution="4k", ratio="16:9")
    plan = panel.compare_plan()
    script = panel.compare_code + (
        "frame = plan.run_sync()\n"
        "import json\n"
        "print(json.dumps({'bodies': [c.body for c in plan.cells],"
        " 'status': frame['status'].tolist()}))\n"
    )
    env = {
        **os.environ,
        "MEDIAGEN_API_KEY": emulator.api_key,
        "MEDIAGEN_BASE_URL": emulator.base_url,
        "MEDIAGEN_TEXT_BASE_URL": emulator.text_base_url,
        "MEDIAGEN_HOME": str(tmp_path / "fresh"),
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["bodies"] == [c.body for c in plan.cells]
    assert [b["resolution"] for b in out["bodies"]] == ["1k", "4k", "4k"]
    assert out["status"] == ["completed"] * 3


async def test_the_history_panel_groups_and_filters_a_comparison(session: Session) -> None:
    panel = ImagePanel(session=session)
    single = panel.submit({"model": "nano-banana", "prompt": "before"}, "banana")
    await single
    panel.set_compare(True, ["nano-banana", "gpt-image-2", "nano-banana-pro"])
    panel.set_compare_values(prompt="compared")
    job = panel.generate()
    assert job is not None
    await job
    await panel.join()
    after = panel.submit({"model": "nano-banana", "prompt": "after"}, "banana")
    await after
    sweep_id = panel.compare_rows[0]["sweep_id"]
    history = HistoryPanel(session=session)
    assert [o["value"] for o in history.options["sweep"]] == [sweep_id]
    assert history.options["sweep"][0]["label"] == "compared · 3"
    ids = [r["sweep_id"] for r in history.rows]
    assert ids == ["", sweep_id, sweep_id, sweep_id, ""]  # together, newest first
    history.set_values(sweep=sweep_id)
    assert len(history.rows) == 3
    assert {r["sweep_id"] for r in history.rows} == {sweep_id}
    assert {r["prompt"] for r in history.rows} == {"compared"}


async def test_chat_compare_streams_every_answer_at_once_and_one_stop_stops_them(
    session: Session, emulator: EmulatorHandle
) -> None:
    emulator.text_rate = 40.0  # a reading pace: long enough to stop mid-answer
    panel = ChatPanel(session=session)
    models = ["gpt-5.5", "claude-opus-4-7", "gemini-2.5-pro"]
    panel.handle_action({"action": "compare", "on": True})
    panel.handle_action({"action": "compare_models", "models": models})
    panel.set(max_tokens=400)
    panel.handle_action({"action": "send", "message": "Tell me a long story about a fox"})
    assert [a["state"] for a in panel.compare_answers] == ["streaming"] * 3
    assert panel.can_stop
    assert not panel.can_send
    await until(lambda: all(a["text"] for a in panel.compare_answers))
    panel.handle_action({"action": "stop"})  # the one Stop
    await panel.join_compare()
    answers = panel.compare_answers
    assert [a["state"] for a in answers] == ["stopped"] * 3
    assert all(a["text"] for a in answers)  # each keeps its partial text
    assert not panel.can_stop
    turns = mg.history(kind="chat", sweep_id=panel.compare_sweep)
    assert sorted(turns["model"]) == sorted(models)
    assert panel.compare_code.startswith("import mediagen_nb as mg")
    assert f"model={models!r}" in panel.compare_code


async def test_chat_compare_runs_to_the_end_with_each_models_answer(
    session: Session, emulator: EmulatorHandle
) -> None:
    panel = ChatPanel(session=session)
    panel.set_compare(True, ["gpt-5.5", "claude-opus-4-7"])
    panel.send_compare("hi")
    await panel.join_compare()
    assert [a["state"] for a in panel.compare_answers] == ["complete"] * 2
    assert [a["title"] for a in panel.compare_answers] == ["GPT-5.5", "Claude Opus 4.7"]
    for answer in panel.compare_answers:
        assert answer["model"] in answer["text"]  # the emulator signs with the model's name
    with pytest.raises(ValueError, match="type a message"):
        panel.send_compare("  ")


def test_a_class_offers_only_its_models_to_compare(session: Session) -> None:
    panel = ImagePanel(session=session)
    panel.set_compare(True, ["nano-banana", "gpt-image-2", "nano-banana-pro"])
    panel.compare_allowed(frozenset({"nano-banana", "nano-banana-pro", "nano-banana-2"}))
    assert [c["value"] for c in panel.compare_choices] == [
        "nano-banana",
        "nano-banana-2",
        "nano-banana-pro",
    ]
    assert panel.compare_models == ["nano-banana", "nano-banana-pro"]
    panel.compare_allowed(frozenset({"nano-banana"}))  # one model left: nothing to compare
    assert not panel.compare
    chat = ChatPanel(session=session)
    chat.compare_allowed(frozenset({"gpt-5.5", "gemini-2.5-pro"}))
    assert [c["value"] for c in chat.compare_choices] == ["gpt-5.5", "gemini-2.5-pro"]
