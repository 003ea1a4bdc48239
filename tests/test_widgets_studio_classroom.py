"""The Studio connected to a classroom gateway, driven from Python: only the class's models
(its defaults chosen), the "left" line after each task and chat turn, a new conversation on
connect, and a JupyterHub server's environment connecting without a form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mediagen_nb.catalog import TEXT_MODELS
from mediagen_nb.classroom import ClassroomHandle, Limits, start_classroom
from mediagen_nb.classroom._hub import HubAuth
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.widgets import Studio
from mediagen_nb.widgets._session import Session
from tests._classroom_helpers import upstream_of

MODELS = ["nano-banana", "nano-banana-2", "claude-haiku-4-5", "gpt-5.4-low"]


@pytest.fixture
def room(tmp_path: Path, marker_emulator: EmulatorHandle) -> Iterator[ClassroomHandle]:
    with start_classroom(
        ["ann"],
        models=MODELS,
        limits=Limits(images=2, chat_tokens=5000),
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "class",
    ) as handle:
        yield handle


def _chat_models(studio: Studio) -> list[str]:
    return [o["value"] for g in studio.chat.spec["models"] for o in g["options"]]


def _image_models(studio: Studio) -> list[str]:
    return [m["value"] for f in studio.images.spec["families"] for m in f["models"]]


async def _connect(studio: Studio, room: ClassroomHandle) -> None:
    studio.handle_action(
        {
            "action": "connect",
            "key": room.codes["ann"],
            "base_url": room.base_url,
            "text_base_url": room.text_base_url,
        }
    )
    await studio.join()


async def test_connected_studio_offers_the_class_models_and_counts_down(
    room: ClassroomHandle,
) -> None:
    studio = Studio(session=Session(), resume=False)
    every_chat = _chat_models(studio)
    assert len(every_chat) == len(TEXT_MODELS)
    assert studio.class_line == ""
    await _connect(studio, room)
    assert studio.errors == []
    assert _chat_models(studio) == ["gpt-5.4-low", "claude-haiku-4-5"]  # catalog order
    assert _image_models(studio) == ["nano-banana", "nano-banana-2"]
    assert [f["id"] for f in studio.images.spec["families"]] == ["banana"]
    assert studio.chat.values["model"] == "gpt-5.4-low"  # the class's default
    assert studio.images.model == "nano-banana"
    assert studio.class_line == "2 of 2 images left · 5,000 chat tokens left"
    assert studio.videos.spec["families"] == []  # the class allows no video model

    studio.images.set(prompt="a lighthouse at dusk")
    job = studio.images.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed"
    await studio.join()
    assert studio.class_line == "1 of 2 images left · 5,000 chat tokens left"

    studio.chat.send("Say hello to the class")
    await studio.chat.join()
    await studio.join()
    assert studio.chat.transcript[-1].state == "complete"
    used = room.usage()[0]["chat_tokens"]
    assert used > 0
    assert studio.class_line == f"1 of 2 images left · {5000 - used:,} chat tokens left"
    await studio.session.aclose()


async def test_connecting_starts_a_new_conversation(room: ClassroomHandle) -> None:
    studio = Studio(session=Session(), resume=False)
    assert studio.session.demo
    studio.chat.send("a demo-mode question")
    await studio.chat.join()
    assert len(studio.chat.transcript) == 2  # the demo turn and its reply
    await _connect(studio, room)
    assert studio.chat.transcript == []
    studio.chat.send("first question to the class")
    await studio.chat.join()
    assert studio.chat.transcript[-1].state == "complete"
    assert studio.chat._last is not None
    sent = studio.chat._last[1]["messages"]
    assert [m["role"] for m in sent if m["role"] != "system"] == ["user"]
    await studio.session.aclose()


def _stand_in_hub(token: str, name: str) -> HubAuth:
    async def user(request: Request) -> JSONResponse:
        if request.headers.get("authorization") != f"token {token}":
            return JSONResponse({"status": 403}, status_code=403)
        return JSONResponse({"kind": "user", "name": name, "groups": ["class-7b"]})

    app = Starlette(routes=[Route("/hub/api/user", user)])
    return HubAuth("http://hub.invalid/hub/api", transport=httpx2.ASGITransport(app=app))


async def test_a_hub_server_environment_connects_without_a_form(
    tmp_path: Path, marker_emulator: EmulatorHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "hub-token-of-zoe-5f2c"
    with start_classroom(
        models=MODELS,
        group_limits={"class-7b": Limits(images=3)},
        jupyterhub=_stand_in_hub(token, "zoe"),
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "hub-class",
    ) as hub_room:
        monkeypatch.setenv("MEDIAGEN_CLASSROOM_URL", hub_room.root_url)
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
        studio = Studio(session=Session(), resume=False)
        await studio.join()
        assert studio.errors == []
        assert not studio.session.demo
        assert studio.mode == f"connected to {hub_room.root_url.split('//')[1]}"
        assert studio.class_line == "3 of 3 images left"
        assert studio.session.classroom is not None
        assert studio.session.classroom.student == "zoe"
        assert token not in repr(studio.session) + studio.text_summary()
        await studio.session.aclose()


def _actions(card_json: dict[str, object]) -> dict[str, tuple[bool, str, list[str]]]:
    """action -> (enabled, reason, target families) of a card's ``to_json()``."""
    actions = card_json["actions"]
    assert isinstance(actions, list)
    return {
        a["action"]: (a["enabled"], a["reason"], [t["family"] for t in a["targets"]])
        for a in actions
    }


async def test_card_actions_offer_only_the_class_families(room: ClassroomHandle) -> None:
    studio = Studio(session=Session(), resume=False)
    await _connect(studio, room)
    studio.images.set(prompt="a lighthouse at dusk")
    job = studio.images.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed"
    await studio.join()
    actions = _actions(studio.images.results[0])
    assert actions["animate"] == (False, "your class cannot make videos", [])
    no_start = "your class has no model that starts from a picture"
    assert actions["first_frame"] == (False, no_start, [])
    assert actions["reference"] == (True, "", ["banana"])  # not GPT Image, not a video family
    assert actions["asset"][:2] == (False, "your class has no model that uses the asset library")

    assert await studio.use(studio.images, card.id, "animate") is None
    assert studio.images.notice == "Animate: your class cannot make videos"
    assert await studio.use(studio.images, card.id, "reference", "image2") is None
    assert studio.images.notice.startswith("Use as reference: your class does not use ")
    target = await studio.use(studio.images, card.id, "reference")
    assert target is not None
    assert target.family == "banana"
    assert studio.images.body()["image_urls"] == [card.url]
    await studio.session.aclose()


async def test_animate_opens_a_video_family_of_the_class(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    with start_classroom(
        ["ann"],
        models=["nano-banana", "starvideos_o3", "gpt-5.4-low"],
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "video-class",
    ) as video_room:
        studio = Studio(session=Session(), resume=False)
        await _connect(studio, video_room)
        studio.images.set(prompt="a kite over the dunes")
        job = studio.images.generate()
        assert job is not None
        card = await job
        assert card is not None
        await studio.join()
        actions = _actions(studio.images.results[0])
        assert actions["animate"] == (True, "", ["starvideos"])  # seedance is not the class's
        target = await studio.use(studio.images, card.id, "animate")
        assert target is not None
        assert target.family == "starvideos"
        assert studio.tab == "Videos"
        assert studio.videos.body()["model"] == "starvideos_o3"
        await studio.session.aclose()
