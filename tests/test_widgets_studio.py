"""Studio driven from Python: tabs and mode line, connect with a key that never reaches widget
state, history "open in form", and resume of tasks left by a previous kernel."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from traitlets import TraitError

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.widgets import ChatPanel, Studio
from mediagen_nb.widgets._session import DEMO_TEXT, Session
from tests._support import KEY

ROOT = Path(__file__).resolve().parent.parent


pytestmark = pytest.mark.emulator(speed=60.0, api_key=KEY, seed=11)


def _client(handle: EmulatorHandle) -> AsyncClient:
    return AsyncClient(
        api_key=handle.api_key, base_url=handle.base_url, text_base_url=handle.text_base_url
    )


def _create_in_another_process(handle: EmulatorHandle) -> str:
    """A "previous kernel": creates an image task in the shared history and exits."""
    script = (
        "import asyncio, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from mediagen_nb.client import AsyncClient\n"
        "async def main():\n"
        "    async with AsyncClient() as client:\n"
        "        task = await client.images.create('nano-banana', prompt='left running')\n"
        "        print(task.id)\n"
        "asyncio.run(main())\n"
    )
    env = {
        **os.environ,
        "MEDIAGEN_API_KEY": handle.api_key,
        "MEDIAGEN_BASE_URL": handle.base_url,
        "MEDIAGEN_TEXT_BASE_URL": handle.text_base_url,
    }
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def _all_widget_state(studio: Studio) -> str:
    """The state of every live widget, as JSON; checks the Studio and its panels are in it."""
    from ipywidgets.widgets.widget import _instances  # every live widget (8.x registry)

    live = dict(_instances)
    searched = {studio, *studio._built()}
    missing = [w for w in searched if live.get(w.model_id) is not w]
    assert missing == []  # the Studio and every built panel are searched
    return json.dumps([w.get_state() for w in live.values()], default=repr)


def _refs(studio: Studio) -> dict[str, Any]:
    """The Studio's panel traits as the front end receives them."""
    state = studio.get_state()
    return {name: state[f"panel_{name.lower()}"] for name in studio.titles}


def test_tabs_mode_line_and_fallback_in_demo_mode() -> None:
    studio = Studio(session=Session(), resume=False)  # no loop: nothing starts
    assert studio.resume_text == ""  # no re-attached tasks
    assert studio.titles == ["Chat", "Images", "Videos", "Assets", "History"]
    assert studio.tab == "Images"  # the first prompt to try is a picture
    refs = _refs(studio)
    assert refs == {
        "Chat": f"anywidget:{studio.chat.model_id}",
        "Images": f"anywidget:{studio.images.model_id}",
        "Videos": None,  # Videos, Assets, History: built when first selected or read
        "Assets": None,
        "History": None,
    }
    studio.select("Videos")  # as a click on the tab in the browser
    studio.set_state({"tab": "Assets"})  # as the front end sends it
    assert studio.errors == []
    history = studio.history  # reading the attribute builds it too
    assert _refs(studio) == {
        **refs,
        "Videos": f"anywidget:{studio.videos.model_id}",
        "Assets": f"anywidget:{studio.assets.model_id}",
        "History": f"anywidget:{history.model_id}",
    }
    assert [type(p).__name__ for p in studio._built()] == [
        "ChatPanel",
        "ImagePanel",
        "VideoPanel",
        "AssetPanel",
        "HistoryPanel",
    ]
    assert studio.tab == "Assets"
    # the bar says the mode once: no panel inside the Studio repeats it
    assert [p.show_mode for p in studio._built()] == [False, False, False, False, True]
    assert ChatPanel(session=studio.session).show_mode  # a panel on its own says it
    with pytest.raises(TraitError):
        studio.select("Nowhere")
    assert (studio.mode, studio.demo) == (DEMO_TEXT, True)
    assert "api_key" not in studio.keys  # the key is never a trait
    bundle = studio._repr_mimebundle_()
    assert bundle is not None
    data = bundle[0]
    assert DEMO_TEXT in data["text/plain"]
    assert "Chat · Images · Videos · Assets · History" in data["text/html"]
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == studio.model_id
    assert studio.resume() is None  # needs a running loop
    assert "running event loop" in studio.resume_text


async def test_connect_keeps_the_key_out_of_widget_state(emulator: EmulatorHandle) -> None:
    studio = Studio(session=Session(), resume=False)
    message = {
        "action": "connect",
        "key": KEY,
        "base_url": emulator.base_url,
        "text_base_url": emulator.text_base_url,
    }
    studio._on_custom_msg(studio, message, [])  # as the Connect button sends it
    await studio.join()
    assert studio.errors == []
    host = emulator.base_url.split("//")[1].split("/")[0]
    assert (studio.mode, studio.demo) == (f"connected to {host}", False)
    assert studio.images.mode == f"connected to {host}"  # every panel follows the session
    # the connected session really talks to the service
    studio.chat.send("hello over the real connection")
    await studio.chat.join()
    assert studio.chat.transcript[-1].state == "complete"
    built = (studio.videos, studio.assets, studio.history)  # the lazy tabs too
    await studio.join()
    assert set(built) <= set(studio._built())
    assert len(studio._built()) == 5
    for text in (
        _all_widget_state(studio),
        studio.text_summary(),
        repr(studio),
        repr(studio.session),
        json.dumps(studio._repr_mimebundle_()),
    ):
        assert KEY not in text
    await studio.session.aclose()


async def test_history_open_in_form_fills_the_panel(emulator: EmulatorHandle) -> None:
    async with _client(emulator) as client:
        task = await client.images.create("gpt-image-2", prompt="a lighthouse", quality="high")
        await task.wait()
        await client.chat.completions.create(
            model="gemini-2.5-pro",
            messages=[
                {"role": "system", "content": "be kind"},
                {"role": "user", "content": "tell me about tides"},
            ],
            temperature=0.4,
        )
        studio = Studio(session=Session(client=client), resume=False)
        studio.select("History")
        assert studio.history.frame is not None
        assert len(studio.history.frame) == 2
        studio.history.reopen(task.id)
        assert studio.errors == studio.history.errors == []
        assert studio.tab == "Images"
        assert studio.images.model == "gpt-image-2"
        assert studio.images.body()["prompt"] == "a lighthouse"
        assert studio.images.body()["quality"] == "high"
        assert studio.images.visible_errors == []
        chat_row = studio.history.frame[studio.history.frame["kind"] == "chat"].iloc[0]
        studio.history.reopen(chat_row["task_id"])
        assert studio.tab == "Chat"
        chat = studio.chat.values
        assert (chat["model"], chat["system"]) == ("gemini-2.5-pro", "be kind")
        assert chat["message"] == "tell me about tides"
        assert chat["sampling"] == "temperature"
        assert chat["temperature"] == pytest.approx(0.4)
        assert studio.chat.can_send


async def test_resume_reattaches_unfinished_tasks_as_cards(emulator: EmulatorHandle) -> None:
    left_id = _create_in_another_process(emulator)
    async with _client(emulator) as client:
        studio = Studio(session=Session(client=client))
        await asyncio.wait_for(studio.join(), timeout=30)
        assert studio.errors == []
        (card,) = studio.resumed
        assert card.task_id == left_id
        assert card.resumed
        assert card.status == "completed"
        assert card.local_path
        assert studio.images.cards == [card]  # shown in the Images gallery
        (shown,) = studio.images.results
        assert (shown["task_id"], shown["resumed"], shown["status"]) == (
            left_id,
            True,
            "completed",
        )
        assert card.id in studio.images.media
        assert studio._videos is None  # no video task: the Videos panel is not built
        assert "Re-attached 1 unfinished task(s)" in studio.resume_text
        text = studio.text_summary()
        assert left_id in text


def test_exported_names_are_sorted_and_complete() -> None:
    import mediagen_nb
    import mediagen_nb.widgets as w

    assert w.__all__ == [
        "AssetPanel",
        "ChatPanel",
        "ChatTranscript",
        "ChatTurn",
        "HistoryPanel",
        "ImagePanel",
        "Result",
        "Session",
        "Studio",
        "SweepGrid",
        "VideoPanel",
    ]
    assert w.__all__ == sorted(w.__all__)
    for name in w.__all__:
        assert getattr(w, name) is not None
    for name in ("AssetPanel", "ChatPanel", "HistoryPanel", "ImagePanel", "Studio", "VideoPanel"):
        assert name in w.__all__
        assert getattr(mediagen_nb, name) is getattr(w, name)


async def test_active_assets_reach_the_video_reference_fields(emulator: EmulatorHandle) -> None:
    async with _client(emulator) as client:
        studio = Studio(session=Session(client=client), resume=False)
        studio.assets.set_values(url="https://example.com/people/bob.png", name="bob")
        studio.assets.submit()
        await asyncio.wait_for(studio.assets.join(), timeout=30)
        (row,) = studio.assets.assets
        assert row.status == "Active"
        studio.videos.select("starvideos_o3")
        assert {
            "uri": f"asset://{row.asset_id}",
            "label": f"bob · Image · asset://{row.asset_id}",
            "type": "Image",
        } in studio.videos.assets
        studio.videos.set(mode="first_last_frame", first_image=f"asset://{row.asset_id}")
        assert studio.videos.body()["first_image"] == f"asset://{row.asset_id}"


def test_connect_without_base_url_shows_the_error_and_stays_in_demo_mode() -> None:
    studio = Studio(session=Session(), resume=False)
    studio.handle_action({"action": "connect", "key": KEY})
    assert len(studio.errors) == 1  # shown next to the form, not as a traceback
    assert "base URL" in studio.notice
    assert KEY not in studio.notice
    assert studio.demo
    assert studio.mode == DEMO_TEXT
    studio.handle_action({"action": "demo"})
    assert studio.errors == []
    session = studio.session
    studio.close()
    assert studio.chat.comm is None
    assert session._callbacks == []  # nothing keeps the closed Studio alive


def test_close_releases_the_whole_tree() -> None:
    from ipywidgets.widgets.widget import _instances

    studio = Studio(session=Session(), resume=False)
    inner = [studio, studio.chat, studio.images, studio.history]
    studio.close()
    assert all(w.comm is None for w in inner)  # nothing of the Studio stays live
    assert studio._videos is None  # closing does not build the panels never opened
    for widget in list(_instances.values()):
        widget.get_state()  # no live container points at a closed widget


def test_unopened_tabs_build_no_panel() -> None:
    from ipywidgets.widgets.widget import _instances

    def built() -> list[str]:
        names = ("VideoPanel", "AssetPanel", "HistoryPanel")
        return sorted(type(w).__name__ for w in _instances.values() if type(w).__name__ in names)

    before = built()
    lazy = Studio(session=Session(), resume=False)
    assert built() == before  # a notebook that never opens them saves none of their state
    for title in ("Videos", "Assets", "History"):
        lazy.select(title)
    assert built() == sorted([*before, "AssetPanel", "HistoryPanel", "VideoPanel"])
    assert lazy.errors == []
    lazy.close()


def test_front_ends_are_the_kit_then_the_panel_module() -> None:
    from mediagen_nb.widgets._frontend import css, esm

    module = esm("generate.js")
    assert module.index("function mgEl(") < module.index("function render(")
    assert module.rstrip().endswith("export default { render };")
    assert module.count("export default") == 1  # the kit exports nothing of its own
    kit = ("kit.js", "kit_media.js", "kit_table.js")
    starts = [module.index(f"/* --- {name} --- */") for name in (*kit, "generate.js")]
    assert starts == sorted(starts)  # the kit's files in order, then the panel's
    sheet = css("generate.css")
    assert sheet.index("--mg-fg: var(--jp-ui-font-color1") < sheet.index(".mg-gen {")
    assert esm("generate.js") is module  # read once, then cached
    with pytest.raises(FileNotFoundError, match="no front-end file"):
        esm("../_studio.py")
    with pytest.raises(FileNotFoundError, match="no front-end file"):
        css("missing.css")
