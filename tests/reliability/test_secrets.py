"""Row 6: an API key set to a known marker through a whole session appears nowhere.

Two sessions, each against an emulator that accepts only the marker key:

* in this process: the client from ``MEDIAGEN_*`` variables (tasks of both kinds, chat and
  messages streams, assets), errors (validation, 401 with a second, wrong marker key, 404),
  every panel and ``Studio`` (the key typed into its field), the history and its CSV exports,
  every logger at DEBUG (httpx2 and httpcore2 included), stdout and stderr;
* a notebook executed by nbclient in a real kernel whose environment holds the key, with
  DEBUG logging printed into the cells, panels displayed, a 401 traceback, and widget state
  stored (``store_widget_state=True``), then saved.

Pass when neither marker (nor its random core) occurs in any captured text, widget state,
repr, exception, log line, notebook file, history file (database, WAL, SHM, media) or CSV.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb.client import AsyncClient, AuthenticationError, MediagenError
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.history import export, history, ledger
from mediagen_nb.types import RequestValidationError
from mediagen_nb.widgets import (
    AssetPanel,
    ChatPanel,
    HistoryPanel,
    ImagePanel,
    Session,
    Studio,
    VideoPanel,
)
from tests.reliability._reliability import child_env, report

CORE = "Q7m2X9vL4kP8"
MARKER = f"mgk-LEAKMARKER-{CORE}-live"
"""The key of the session."""
WRONG_CORE = "Z3r8T1w6N5b0"
WRONG = f"mgk-WRONGMARKER-{WRONG_CORE}"
"""A key the service refuses (401)."""
NEEDLES = (MARKER, CORE, WRONG, WRONG_CORE)
DEBUG_LOGGERS = (
    "",
    "mediagen_nb",
    "mediagen_nb.client",
    "mediagen_nb.history",
    "mediagen_nb.widgets",
    "mediagen_nb.emulator",
    "httpx2",
    "httpcore2",
    "httpcore2.connection",
    "httpcore2.http11",
    "uvicorn",
    "uvicorn.error",
    "asyncio",
)


class _Capture(logging.Handler):
    """Keeps every record, formatted with its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def debug_logs() -> Iterator[_Capture]:
    """Every logger at DEBUG into one capturing handler on the root logger."""
    handler = _Capture()
    levels = {name: logging.getLogger(name).level for name in DEBUG_LOGGERS}
    root = logging.getLogger()
    root.addHandler(handler)
    for name in DEBUG_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


pytestmark = [
    pytest.mark.usefixtures("fast_render"),
    pytest.mark.emulator(speed=300.0, api_key=MARKER, seed=8),
]


def _leaks(where: str, text: str | bytes) -> list[str]:
    """``where: needle`` for each marker found in ``text``."""
    if isinstance(text, bytes):
        return [f"{where}: {n}" for n in NEEDLES if n.encode() in text]
    return [f"{where}: {n}" for n in NEEDLES if n in text]


def _files_leaks(folder: Path) -> tuple[list[str], int]:
    """Leaks in every file under ``folder`` (database, WAL, SHM, media), and the file count."""
    found: list[str] = []
    files = [p for p in folder.rglob("*") if p.is_file()]
    for path in files:
        found += _leaks(str(path.relative_to(folder)), path.read_bytes())
    return found, len(files)


def _exception_texts(exc: BaseException) -> list[str]:
    return [
        str(exc),
        repr(exc),
        "".join(traceback.format_exception(exc)),
        repr(vars(exc)),
    ]


async def _client_session(emulator: EmulatorHandle) -> list[str]:
    """Everything a user of the client sees; returns the texts to search."""
    texts: list[str] = []
    async with AsyncClient() as client:  # key and URLs from the environment
        texts += [repr(client), str(client), repr(client.retry_transport)]
        image = await client.images.create("gpt-image-2", prompt="a lighthouse", ratio="16:9")
        video = await client.videos.create(
            "seedance_1_5_pro_480p", content=[{"type": "text", "text": "a boat"}], duration=4
        )
        for task in (image, video):
            await task.wait(timeout=120)
            await task.read_bytes()
            texts += [repr(task), repr(task.result)]
        reply = await client.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "hello"}]
        )
        stream = await client.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "stream please"}], stream=True
        )
        await stream.until_done()
        message = await client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=200,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )
        await message.until_done()
        asset = await client.assets.upload("https://example.com/faceless.png", "Image")
        asset = await client.assets.get(asset.assetId)
        texts += [repr(reply), stream.text, message.text, repr(asset)]
        for bad in (
            client.images.create("gpt-image-2", prompt=""),
            client.tasks.get("img_does_not_exist"),
        ):
            try:
                await bad
            except (MediagenError, RequestValidationError) as exc:
                texts += _exception_texts(exc)
            else:
                pytest.fail("expected an error")
    async with AsyncClient(WRONG, emulator.base_url, emulator.text_base_url) as wrong:
        texts.append(repr(wrong))
        with pytest.raises(AuthenticationError) as info:
            await wrong.images.create("nano-banana", prompt="refused")
        texts += _exception_texts(info.value)
        with pytest.raises(AuthenticationError) as info:
            await wrong.chat.completions.create(
                model="gpt-5.4", messages=[{"role": "user", "content": "x"}], stream=True
            )
        texts += _exception_texts(info.value)
    return texts


async def _panel_session(emulator: EmulatorHandle, csv_path: Path) -> list[str]:
    """The panels and Studio, the key typed into Studio's field; returns texts to search."""
    import ipywidgets

    session = Session(
        api_key=MARKER, base_url=emulator.base_url, text_base_url=emulator.text_base_url
    )
    image = ImagePanel(session=session, model="nano-banana")
    image.set(prompt="a red fox")
    video = VideoPanel(session=session, model="neutralSora2Plus")
    video.set(prompt="a drone shot")
    chat = ChatPanel(session=session)
    studio = Studio(session=Session(), resume=False)
    typed = {  # what the Connect button sends once (the key field is never a trait)
        "action": "connect",
        "key": MARKER,
        "base_url": emulator.base_url,
        "text_base_url": emulator.text_base_url,
    }
    studio._on_custom_msg(studio, typed, [])
    host = emulator.base_url.split("//")[1].split("/")[0]
    assert studio.errors == []
    assert studio.mode == f"connected to {host}"
    assets = AssetPanel(session=session)
    assets.set_values(url="https://example.com/faceless.png")
    wrong = ChatPanel(
        session=Session(
            api_key=WRONG, base_url=emulator.base_url, text_base_url=emulator.text_base_url
        )
    )
    panels: list[Any] = [image, video, chat, studio, assets, wrong]
    try:
        for job in (image.generate(), video.generate(), chat.send("hello there")):
            assert job is not None
            await job
        await assets.submit()
        assets.refresh()
        await assets.join()
        history_panel = HistoryPanel(session=session)
        panels.append(history_panel)
        history_panel.export(csv_path)
        wrong.send("this will be refused")
        await wrong.join()
        assert wrong.transcript[-1].state == "error"
        state = ipywidgets.Widget.get_manager_state(drop_defaults=False)
        texts = [json.dumps(state, default=repr)]
        for panel in panels:
            texts += [repr(panel), panel.text_summary(), repr(panel.session), *panel.errors]
            texts.append(json.dumps(panel._repr_mimebundle_(), default=repr))
        return texts
    finally:
        for panel in panels:
            panel.close()
        await session.aclose()
        await studio.session.aclose()
        await wrong.session.aclose()


async def test_marker_key_never_leaks_in_process(
    emulator: EmulatorHandle,
    debug_logs: _Capture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("MEDIAGEN_API_KEY", MARKER)
    monkeypatch.setenv("MEDIAGEN_BASE_URL", emulator.base_url)
    monkeypatch.setenv("MEDIAGEN_TEXT_BASE_URL", emulator.text_base_url)
    texts = await _client_session(emulator)
    texts += await _panel_session(emulator, tmp_path / "panel-export.csv")
    frame = history()
    texts.append(frame.to_csv())
    csv = export(tmp_path / "export.csv")
    out, err = capsys.readouterr()

    home = ledger().home
    leaks = [leak for i, text in enumerate(texts) for leak in _leaks(f"text {i}", text)]
    leaks += [leak for line in debug_logs.lines for leak in _leaks("log", line)]
    leaks += _leaks("stdout", out) + _leaks("stderr", err)
    leaks += _leaks("export.csv", csv.read_bytes())
    leaks += _leaks("panel-export.csv", (tmp_path / "panel-export.csv").read_bytes())
    file_leaks, files = _files_leaks(home)
    leaks += file_leaks
    names = sorted(p.name for p in home.iterdir())
    report(
        "row 6 secrets (process)",
        texts=len(texts),
        log_lines=len(debug_logs.lines),
        history_rows=len(frame),
        history_files=files,
        csv_bytes=csv.stat().st_size,
        leaks=len(leaks),
    )
    assert "history.sqlite3-wal" in names  # the WAL was searched while it held data
    assert len(frame) >= 8
    assert any("httpcore2" in line for line in debug_logs.lines)
    assert any(line.startswith("httpx2 ") for line in debug_logs.lines)
    assert not leaks, leaks


NOTEBOOK_CELLS = [
    "import logging, os, sys\n"
    "logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, force=True)\n"
    "for name in ('httpx2', 'httpcore2', 'mediagen_nb'):\n"
    "    logging.getLogger(name).setLevel(logging.DEBUG)\n"
    "import mediagen_nb\n"
    "client = mediagen_nb.AsyncClient()\n"
    "client",
    "task = await client.images.create('nano-banana', prompt='a lighthouse at dusk')\n"
    "await task.wait(timeout=120)\n"
    "print(task, task.local_path is not None)",
    "reply = await client.chat.completions.create(model='gpt-5.4',"
    " messages=[{'role': 'user', 'content': 'hello'}], stream=True)\n"
    "await reply.until_done()\n"
    "print(reply.text[:80])",
    "panel = mediagen_nb.ImagePanel(model='gpt-image-2')\n"
    "panel.set(prompt='a red fox')\n"
    "await panel.generate()\n"
    "panel",
    "chat = mediagen_nb.ChatPanel()\nawait chat.send('tell me about tides')\nchat",
    "studio = mediagen_nb.Studio()\nstudio",
    "wrong = mediagen_nb.AsyncClient(api_key=os.environ['RELIABILITY_WRONG_KEY'])\n"
    "await wrong.images.create('nano-banana', prompt='refused')",
    "frame = mediagen_nb.history()\n"
    "mediagen_nb.history.export('exported.csv')\n"
    "frame[['kind', 'status', 'model']]",
]


def test_marker_key_never_leaks_from_a_saved_notebook(
    emulator: EmulatorHandle, tmp_path: Path
) -> None:
    import nbformat
    from nbclient import NotebookClient

    workdir = tmp_path / "nb"
    home = tmp_path / "kernel_home"
    workdir.mkdir()
    notebook = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]  # untyped library
    cell = nbformat.v4.new_code_cell  # untyped library
    notebook.cells = [cell(source) for source in NOTEBOOK_CELLS]  # type: ignore[no-untyped-call]
    notebook.cells[-2].metadata["tags"] = ["raises-exception"]
    env = child_env(
        home,
        MEDIAGEN_API_KEY=MARKER,
        MEDIAGEN_BASE_URL=emulator.base_url,
        MEDIAGEN_TEXT_BASE_URL=emulator.text_base_url,
        RELIABILITY_WRONG_KEY=WRONG,
        JUPYTER_PLATFORM_DIRS="1",
    )
    runner = NotebookClient(
        notebook,
        timeout=180,
        kernel_name="python3",
        store_widget_state=True,
        resources={"metadata": {"path": str(workdir)}},
    )
    runner.execute(env=env, cwd=str(workdir))
    saved = workdir / "session.ipynb"
    nbformat.write(notebook, saved)  # type: ignore[no-untyped-call]

    raw = saved.read_bytes()
    leaks = _leaks("session.ipynb", raw)
    file_leaks, files = _files_leaks(home)
    leaks += file_leaks
    leaks += _leaks("exported.csv", (workdir / "exported.csv").read_bytes())
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    text = json.dumps(outputs)
    state = notebook.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}
    )
    report(
        "row 6 secrets (notebook)",
        cells=len(notebook.cells),
        outputs=len(outputs),
        notebook_bytes=len(raw),
        widget_models=len(state.get("state", {})),
        history_files=files,
        leaks=len(leaks),
    )
    assert "AuthenticationError" in text  # the 401 traceback is in the saved notebook
    assert "httpcore2" in text  # DEBUG logs of every library were printed into the cells
    models = [m["state"] for m in state.get("state", {}).values()]
    assert len(models) >= 8  # every panel's widget state was stored (the Studio's too)
    assert any("panel_chat" in model for model in models)
    assert not leaks, leaks
