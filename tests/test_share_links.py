"""Links that share (``widgets._share``, ``Studio.prefill``), and "Export this session" as one
self-contained HTML page (``widgets._session_page``), and the Studio's ``busy`` (leaving the
page asks first while it is set), headless."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb._png import encode_rgb
from mediagen_nb.history._ledger import Ledger
from mediagen_nb.widgets import HistoryPanel, Studio
from mediagen_nb.widgets._gallery import Result
from mediagen_nb.widgets._share import parse_link, share_query


@pytest.fixture
def studio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Studio]:
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "home"))
    made = Studio(resume=False)
    yield made
    made.close()


def test_a_link_fills_the_images_form_and_shows_its_tab(studio: Studio) -> None:
    studio.select("Chat")
    query = "theme=dark&kernel=python&tab=images&model=gpt-image-2&prompt=a%20red%20fox"
    assert studio.prefill(query) == []
    assert studio.tab == "Images"
    assert studio.images.model == "gpt-image-2"
    assert studio.images.body()["prompt"] == "a red fox"
    assert studio.notice == ""


def test_a_bad_value_is_named_in_the_notice_and_under_its_field(studio: Studio) -> None:
    problems = studio.prefill("tab=images&model=gpt-image-2&prompt=x&size=99999999999999999999x16")
    assert len(problems) == 1
    assert problems[0].startswith("Exact size")
    assert "at most" in problems[0]
    assert studio.notice == f"This link: {problems[0]}"
    assert studio.images.attempted  # the panel shows the error under the field
    assert problems[0] in studio.images.visible_errors


@pytest.mark.parametrize(
    ("query", "said"),
    [
        (
            "tab=pictures",
            "tab: must be one of images, videos, chat, assets, history (got 'pictures')",
        ),
        ("tab=videos&model=nope", "model: 'nope' is not a video model of the catalog"),
        (
            "tab=images&api_key=sk-123",
            "api_key: a link never carries a key (connect in the Studio)",
        ),
        ("tab=chat&model=no-such-chat", "model: 'no-such-chat' is not a chat model of the catalog"),
        ("tab=chat&temperature=2", "temperature: a chat link sets only model and prompt"),
    ],
)
def test_each_refused_value_is_named(studio: Studio, query: str, said: str) -> None:
    assert studio.prefill(query) == [said]
    assert studio.notice == f"This link: {said}"
    assert "sk-123" not in str(studio.images.values)


def test_a_link_for_chat_fills_model_and_message(studio: Studio) -> None:
    model = studio.chat.values["model"]
    assert studio.prefill(f"tab=chat&model={model}&prompt=Hello%20there") == []
    assert studio.tab == "Chat"
    assert studio.chat.values["message"] == "Hello there"


def test_only_the_page_s_own_parameters_ask_for_nothing(studio: Studio) -> None:
    assert parse_link("theme=dark&kernel=python&showBanner=0&code=x") is None
    assert parse_link("file=notebooks/playground_marimo.py&size=1") is None  # no tab/model/prompt
    assert studio.prefill("theme=dark&token=abc") == []
    assert studio.tab == "Images"


def test_a_card_s_share_link_reproduces_its_request_without_a_key(studio: Studio) -> None:
    studio.images.set(prompt="a lighthouse at dusk")
    body = studio.images.body()
    result = Result(kind="image", family="image2", family_title="Image 2", body=body)
    query = result.to_json()["share"]
    assert dict(parse_qsl(query))["tab"] == "images"
    keyed = share_query("image", {**body, "api_key": "sk-secret", "authorization": "Bearer x"})
    assert "sk-secret" not in keyed
    assert "Bearer" not in keyed
    studio.select("Chat")
    studio.images.set(prompt="something else")
    assert studio.prefill(query) == []
    assert studio.images.body() == body  # the same request again
    assert studio.tab == "Images"


class _Sources(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.sources += [v or "" for k, v in attrs if k in ("src", "href")]


def test_export_this_session_is_one_page_with_everything_inside(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = Ledger(home)
    picture = encode_rgb(4, 4, [bytes([10, 200, 30] * 4)] * 4)
    body = {"model": "gpt-image-2", "prompt": "a <green> square"}
    store.record(
        LedgerEvent(
            kind="task", action="created", key="t1", family="image2", model="gpt-image-2",
            data={"request": body, "status": "queued"},
        )
    )  # fmt: skip
    store.store_media("t1", picture, ".png")
    store.record(LedgerEvent(kind="chat", action="started", key="c1", model="gpt-5.4"))
    store.close()
    panel = HistoryPanel(home=home)
    panel.handle_action({"action": "export-session"})
    assert panel.errors == []
    assert panel.keep_note.startswith("Exported this session (2 results) to ")
    page = next((home / "exports").glob("mediagen-session-*.html")).read_text()
    parser = _Sources()
    parser.feed(page)
    assert parser.sources  # the picture
    assert all(s.startswith("data:") for s in parser.sources)  # nothing outside the file
    data_url = "data:image/png;base64," + base64.b64encode(picture).decode()
    assert data_url in page
    assert "a &lt;green&gt; square" in page  # the prompt, escaped
    assert "client.images.create(" in page  # the Copy-as-code snippet
    assert "&quot;prompt&quot;: &quot;a &lt;green&gt; square&quot;" in page  # the parameters
    assert len(re.findall("<article>", page)) == 2
    assert "http://" not in page
    assert "https://" not in page


async def test_the_studio_is_busy_while_a_task_runs(studio: Studio) -> None:
    studio.images.set(prompt="a slow picture")
    assert studio.busy is False
    running = studio.images.generate()
    assert running is not None
    seen: list[bool] = []
    studio.observe(lambda change: seen.append(change["new"]), names="busy")
    await running
    await studio.images.join()
    assert seen[0] is True  # leaving the page asked while the task ran
    assert studio.busy is False  # and no longer once it is done
