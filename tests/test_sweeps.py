"""mg.sweep: a plan's cells and their problems, the translation per family, a run's rows,
the sweep id in the history, resume after a restart, and the plan's copy-as-code."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

import mediagen_nb as mg
from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.catalog._carry import carry
from mediagen_nb.catalog._form_body import defaults
from mediagen_nb.client import AsyncClient, recording_tags
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.history import Ledger
from mediagen_nb.sweeps import SweepPlan
from mediagen_nb.sweeps._resume import unfinished_sweeps
from mediagen_nb.sweeps._translate import translate

pytestmark = pytest.mark.emulator(speed=600.0)

MODELS = ["nano-banana", "nano-banana-pro", "gpt-image-2"]


def example() -> SweepPlan:
    return mg.sweep(
        "image", model=MODELS, prompt=["a fox", "an owl"], resolution=["1k", "4k"], ratio="16:9"
    )


def client_for(emulator: EmulatorHandle, recorder: Any = None) -> AsyncClient:
    kwargs: dict[str, Any] = {} if recorder is None else {"recorder": recorder}
    return AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url, **kwargs)


# -- the plan ---------------------------------------------------------------------------


def test_the_cells_are_the_product_of_the_axes_in_order() -> None:
    plan = example()
    assert len(plan) == 12
    assert [c.axes for c in plan.cells[:3]] == [
        {"model": "nano-banana", "prompt": "a fox", "resolution": "1k"},
        {"model": "nano-banana", "prompt": "a fox", "resolution": "4k"},
        {"model": "nano-banana", "prompt": "an owl", "resolution": "1k"},
    ]
    assert plan.fixed == {"ratio": "16:9"}
    assert all(c.params["ratio"] == "16:9" for c in plan.cells)


def test_invalid_cells_carry_the_validators_problems_and_the_summary_says_why() -> None:
    plan = example()
    invalid = plan.invalid
    assert [(c.model, c.axes["resolution"]) for c in invalid] == [
        ("nano-banana", "4k"),
        ("nano-banana", "4k"),
    ]
    assert {(p.field, p.is_error) for c in invalid for p in c.problems} == {("resolution", True)}
    assert "nano-banana-pro" in invalid[0].problems[0].rule  # names the models that can
    head, *notes = plan.summary().splitlines()
    assert head.startswith("12 cells: 10 to send, 2 invalid: nano-banana: resolution: ")
    assert head.endswith("(2 cells)")
    assert notes == ["  banana: ratio is sent as size (8 cells)"]


def test_a_common_ratio_becomes_each_familys_own_field() -> None:
    bodies = {
        model: translate("video" if "Sora" in model or "_" in model else "image", params).body
        for model, params in (
            (m, {"model": m, "prompt": "p", "ratio": "16:9"})
            for m in ("nano-banana", "gpt-image-2", "neutralSora2Plus", "seedance_1_5_pro_720p")
        )
    }
    assert bodies["nano-banana"]["size"] == "16:9"
    assert bodies["gpt-image-2"]["ratio"] == "16:9"
    assert bodies["neutralSora2Plus"]["size"] == "1280x720"  # the landscape orientation
    assert bodies["seedance_1_5_pro_720p"]["ratio"] == "16:9"
    assert bodies["seedance_1_5_pro_720p"]["content"] == [{"type": "text", "text": "p"}]
    assert "ratio" not in bodies["nano-banana"]


def test_the_sweep_translates_as_the_form_carries_on_a_family_switch() -> None:
    """One mapping: what the Images/Videos form keeps when switching family is what a sweep
    sends for a common word."""
    image2 = {**defaults("image2"), "prompt": "p", "ratio": "9:16"}
    banana = carry(image2, "banana", None)
    assert (
        translate("image", {"model": "nano-banana", "ratio": "9:16"}).body["size"]
        == (banana["size"])
    )
    seedance = {**defaults("seedance"), "ratio": "16:9", "duration": 8}
    sora = carry(seedance, "sora", None)
    cell = translate("video", {"model": "neutralSora2Pro", "ratio": "16:9", "duration": 8})
    assert (sora["orientation"], sora["length"]) == ("landscape", 8)
    assert (cell.body["size"], cell.body["duration"]) == ("1280x720", 8)


def test_what_a_family_drops_or_cannot_take_is_said() -> None:
    plan = mg.sweep(
        "video",
        model=["neutralSora2Plus", "viduq3-pro"],
        prompt="a fox",
        ratio=["16:9", "4:3"],
        resolution="720p",
    )
    reasons = [c.reason() for c in plan.invalid]
    assert reasons == ["neutralSora2Plus: ratio: sora cannot take ratio 4:3 (only 9:16, 16:9)"]
    lines = plan.summary().splitlines()
    assert "  sora: resolution dropped (Sora 2 has no resolution) (2 cells)" in lines
    assert "  vidu: ratio dropped (Vidu Q3 has no ratio) (2 cells)" in lines
    assert "  sora: ratio 16:9 is sent as size 1280x720" in lines
    vidu = [c for c in plan.cells if c.model == "viduq3-pro"]
    assert all("ratio" not in c.body and c.valid for c in vidu)


def test_family_specific_names_and_unknown_models() -> None:
    cell = translate("video", {"model": "neutralSora2Pro", "prompt": "p", "aspect_ratio": "9:16"})
    assert cell.body["aspect_ratio"] == "9:16"
    assert cell.notes == ()
    unknown = mg.sweep("image", model=["nano-banana", "no-such-model"], prompt="p")
    assert [p.field for p in unknown.invalid[0].problems] == ["model"]
    assert mg.sweep("image", model="sora-x", prompt="p").cells[0].valid is False
    with pytest.raises(ValueError, match="kind"):
        mg.sweep("audio", model="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prompt: an axis needs at least one value"):
        mg.sweep("image", model="nano-banana", prompt=[])


def test_a_tuple_is_one_value_and_a_chat_prompt_becomes_a_message() -> None:
    refs = ("https://example.org/a.png", "https://example.org/b.png")
    plan = mg.sweep("image", model="gpt-image-2", prompt="p", references=refs)
    assert len(plan) == 1
    assert plan.cells[0].body["image_urls"] == list(refs)
    chat = mg.sweep("chat", model=["gpt-5.5", "gemini-2.5-pro"], prompt="hi", system="Be brief.")
    assert chat.cells[0].body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
    ]


def test_recording_tags_reach_only_the_events_that_begin_a_row(tmp_path: Path) -> None:
    from mediagen_nb.client._recording import SafeRecorder

    store = Ledger(tmp_path / "h")
    recorder = SafeRecorder(store, "svc")
    with recording_tags(sweep_id="sweep-1", sweep_cell=3), recording_tags(sweep_cell=4):
        recorder.event("task", "created", "t1", request={"model": "m", "prompt": "p"})
        recorder.event("task", "status", "t1", status="processing")
    recorder.event("task", "created", "t2", request={"model": "m", "prompt": "p"})
    data = [
        (e["key"], e["action"], e["data"].get("sweep_id"), e["data"].get("sweep_cell"))
        for e in store.events()
    ]
    assert data == [
        ("t1", "created", "sweep-1", 4),
        ("t1", "status", None, None),
        ("t2", "created", None, None),
    ]
    assert [r["sweep_id"] for r in store.items(kind="task")] == [None, "sweep-1"]
    store.close()


def _is_file(path: str) -> bool:
    return Path(path).is_file()


# -- running ----------------------------------------------------------------------------


async def test_a_run_gives_one_row_per_cell_and_every_task_carries_the_sweep_id(
    emulator: EmulatorHandle,
) -> None:
    plan = example()
    async with client_for(emulator) as client:
        frame = await plan.run(concurrency=3, client=client)
    assert list(frame.columns) == [
        "model",
        "prompt",
        "resolution",
        "status",
        "task_id",
        "local_file",
        "elapsed",
        "error",
        "sweep_id",
    ]
    assert frame["status"].tolist().count("completed") == 10
    assert frame["status"].tolist().count("invalid") == 2
    invalid = frame[frame["status"] == "invalid"]
    assert set(invalid["model"]) == {"nano-banana"}
    assert all("4k" in e for e in invalid["error"])
    done = frame[frame["status"] == "completed"]
    assert all(_is_file(f) for f in done["local_file"])
    assert set(frame["sweep_id"]) == {plan.sweep_id}
    assert len(emulator.state.tasks) == 10
    history = mg.history(sweep_id=plan.sweep_id)
    assert sorted(history["task_id"]) == sorted(done["task_id"])
    assert set(history["sweep_id"]) == {plan.sweep_id}
    assert len(mg.history_records(sweep_id="sweep-none")) == 0
    again = await _rerun(plan, emulator)
    assert again["task_id"].tolist() == frame["task_id"].tolist()  # nothing sent twice
    assert len(emulator.state.tasks) == 10


async def _rerun(plan: SweepPlan, emulator: EmulatorHandle) -> Any:
    plan.results.clear()  # as if this object were new: only the history knows
    async with client_for(emulator) as client:
        return await plan.run(client=client)


async def test_a_chat_sweep_gives_each_models_answer_and_usage(emulator: EmulatorHandle) -> None:
    plan = mg.sweep("chat", model=["gpt-5.5", "claude-opus-4-7", "gemini-2.5-pro"], prompt="hi")
    async with client_for(emulator) as client:
        frame = await plan.run(client=client)
    assert frame["status"].tolist() == ["completed"] * 3
    for model, text, usage in zip(frame["model"], frame["text"], frame["usage"], strict=True):
        assert model in text  # the emulator signs its answer with the model's name
        assert usage["total_tokens"] > 0
    turns = mg.history(kind="chat", sweep_id=plan.sweep_id)
    assert sorted(turns["model"]) == sorted(frame["model"])


# -- resume ------------------------------------------------------------------------------


async def test_resume_after_a_restart_creates_every_cell_exactly_once(
    emulator: EmulatorHandle, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    plan = mg.sweep("image", model=MODELS, prompt=["a fox", "an owl"])
    first = Ledger(home)
    client = client_for(emulator, first)
    run = asyncio.get_running_loop().create_task(plan.run(concurrency=1, client=client))

    def die_after_three(_index: int) -> None:  # the kernel dies once a third task is made
        if sum(r.task_id is not None for r in plan.results.values()) == 3:
            run.cancel()

    plan.on_change(die_after_three)
    with pytest.raises(asyncio.CancelledError):
        await run
    await client.aclose()
    first.close()
    assert len(emulator.state.tasks) == 3

    second = Ledger(home)  # a new kernel: new ledger object, new client, same home
    (left,) = unfinished_sweeps(second)
    assert left.sweep_id == plan.sweep_id
    assert [c.body for c in left.cells] == [c.body for c in plan.cells]
    async with client_for(emulator, second) as fresh:
        await mg.resume(fresh, home=home, include_this_process=True, wait=True)
    assert len(emulator.state.tasks) == 6  # each cell created once
    rows = mg.history(home=home, sweep_id=plan.sweep_id)
    assert rows["status"].tolist() == ["completed"] * 6
    creates = [e for e in second.events(sweep_id=plan.sweep_id) if e["action"] == "created"]
    assert sorted(e["data"]["sweep_cell"] for e in creates) == list(range(6))
    assert unfinished_sweeps(second) == []
    second.close()


# -- copy as code --------------------------------------------------------------------------


def test_the_plans_code_reproduces_its_cells_in_a_fresh_interpreter(
    emulator: EmulatorHandle, tmp_path: Path
) -> None:
    plan = mg.sweep(
        "image",
        model=["nano-banana", "gpt-image-2"],
        prompt="a lighthouse",
        resolution=["1k", "4k"],
        ratio="16:9",
        references=("https://example.org/a.png",),
    )
    script = plan.code() + (
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
    assert "model=['nano-banana', 'gpt-image-2'], prompt='a lighthouse', resolution=" in script
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["bodies"] == [c.body for c in plan.cells]
    assert out["status"] == ["completed", "invalid", "completed", "completed"]
    assert len(emulator.state.tasks) == 3


def test_a_recorded_plan_event_rebuilds_the_same_plan(tmp_path: Path) -> None:
    plan = example()
    store = Ledger(tmp_path / "h")
    store.record(
        LedgerEvent(
            kind="sweep",
            action="planned",
            key=plan.sweep_id,
            service="svc",
            data={
                "kind": plan.kind,
                "axes": plan.axes,
                "fixed": plan.fixed,
                "cells": [c.to_json() for c in plan.cells],
            },
        )
    )
    (back,) = unfinished_sweeps(store, "svc")
    assert unfinished_sweeps(store, "elsewhere") == []
    assert [c.to_json() for c in back.cells] == [c.to_json() for c in plan.cells]
    assert back.summary() == plan.summary()
    assert store.items() == []  # a sweep event makes no history row
    store.close()


# -- grid and contact sheet ----------------------------------------------------------------


async def test_a_grid_made_before_the_run_follows_it(
    emulator: EmulatorHandle, tmp_path: Path
) -> None:
    plan = example()
    grid = plan.grid(x="model", y="resolution")
    assert (grid.columns, grid.rows) == (MODELS, ["1k", "4k"])
    assert [c["status"] for c in grid.cells] == ["pending"] * 3 + ["invalid"] + ["pending"] * 2
    async with client_for(emulator) as client:
        await plan.run(client=client)
    statuses = [c["status"] for c in grid.cells]
    assert statuses == ["completed"] * 3 + ["invalid"] + ["completed"] * 2
    done = [c for c in grid.cells if c["status"] == "completed"]
    assert all(c["src"].startswith("data:image/") for c in done)
    assert "4k" in grid.cells[3]["note"]
    sheet = plan.contact_sheet(str(tmp_path / "sheet.png"), x="model", y="resolution")
    from PIL import Image

    with Image.open(sheet) as picture:
        assert picture.size == (160 + 3 * (256 + 8), 28 + 2 * (256 + 8))
    _the_sheet_without_pillow(plan, tmp_path)


def _the_sheet_without_pillow(plan: SweepPlan, tmp_path: Path) -> None:
    """The browser's path: the same layout, PNG tiles decoded and labels drawn in Python."""
    from mediagen_nb import _png
    from mediagen_nb.sweeps import _sheet
    from mediagen_nb.sweeps._layout import layout

    grid = layout(plan, "model", "resolution")
    picture = _png.decode(_sheet._pure_sheet(plan, grid))
    assert (picture.width, picture.height) == (160 + 3 * (256 + 8), 28 + 2 * (256 + 8))
    black = bytes(3)
    assert any(black in row for row in picture.rows[8:19])  # the column labels
    invalid_tile = picture.rows[28 + 264 + 10][160 * 3 : (160 + 256) * 3]  # nano-banana at 4k
    assert invalid_tile == bytes(_sheet.GREY) * 256
    shown = picture.rows[28 + 10][(160 + 264) * 3 : (160 + 264 + 256) * 3]  # a finished picture
    assert shown != bytes(_sheet.GREY) * 256
    assert shown != b"\xff" * (256 * 3)


# -- one Stop --------------------------------------------------------------------------------


@pytest.mark.emulator(speed=1.0)
async def test_one_stop_ends_every_cell_and_resume_leaves_the_sweep(
    emulator: EmulatorHandle,
) -> None:
    plan = mg.sweep("image", model=MODELS, prompt=["a fox", "an owl"])
    async with client_for(emulator) as client:
        run = asyncio.ensure_future(plan.run(concurrency=4, client=client))

        stops: list[bool] = []

        def stop_once_four_are_made(_index: int) -> None:
            if not stops and sum(r.task_id is not None for r in plan.results.values()) == 4:
                stops.append(plan.stop())

        plan.on_change(stop_once_four_are_made)
        frame = await asyncio.wait_for(run, 60)
        assert stops == [True]
        assert not plan.stop()  # nothing runs any more
        resumed = await mg.resume(client, include_this_process=True)
    assert frame["status"].tolist() == ["cancelled"] * 6
    assert frame["task_id"].notna().sum() == 4
    assert len(emulator.state.tasks) == 4  # the two cells not yet sent were never sent
    store = Ledger(Path(os.environ["MEDIAGEN_HOME"]))
    assert unfinished_sweeps(store) == []
    (finished,) = [e for e in store.events(key=plan.sweep_id) if e["action"] == "finished"]
    assert finished["data"] == {"statuses": {"cancelled": 6}, "stopped": True}
    store.close()
    assert {t.id for t in resumed} <= set(frame["task_id"].dropna())


class HeldChat(httpx2.AsyncBaseTransport):
    """Holds every chat request forever; counts them."""

    def __init__(self, expected: int) -> None:
        self.arrived = 0
        self.expected = expected
        self.all_in = asyncio.Event()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/v1/classroom/me"):  # the plain service: no classroom
            return httpx2.Response(404, json={"error": "not found"})
        self.arrived += 1
        if self.arrived == self.expected:
            self.all_in.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_one_stop_ends_a_chat_compare_and_its_turns() -> None:
    transport = HeldChat(3)
    plan = mg.sweep("chat", model=["gpt-5.5", "claude-opus-4-7", "gemini-2.5-pro"], prompt="hi")
    async with AsyncClient("k", "http://svc.test", "http://text.test", transport) as client:
        run = asyncio.ensure_future(plan.run(concurrency=3, client=client))
        await asyncio.wait_for(transport.all_in.wait(), 10)
        assert plan.stop()
        frame = await asyncio.wait_for(run, 10)
    assert frame["status"].tolist() == ["cancelled"] * 3
    turns = mg.history(kind="chat", sweep_id=plan.sweep_id)
    assert turns["status"].tolist() == ["incomplete"] * 3


def test_a_fitted_plan_gives_each_model_what_it_takes_and_says_so() -> None:
    plan = mg.sweep("image", model=MODELS, prompt="a fox", resolution="4k").fitted()
    assert plan.invalid == []
    assert [c.body["resolution"] for c in plan.cells] == ["1k", "4k", "1k"]  # gpt: 4k needs a ratio
    assert plan.cells[0].notes == ("nano-banana: resolution 1K (it has no 4K)",)
    assert plan.cells[1].notes == ()
    assert plan.summary().splitlines()[1] == "  nano-banana: resolution 1K (it has no 4K)"
    assert plan.code().endswith(").fitted()\n")
    videos = mg.sweep("video", model=["neutralSora2Plus"], prompt="waves", ratio="1:1").fitted()
    assert videos.invalid == []
    assert videos.cells[0].notes == ("neutralSora2Plus: ratio Portrait (it has no 1:1)",)
