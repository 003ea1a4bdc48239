"""Students see their class (``GET /v1/classroom/me``), hub groups map to limits, and a hub
token signs a student in (against a stand-in hub here; tests/test_classroom_hub.py runs a
real JupyterHub)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mediagen_nb.classroom import ClassroomHandle, Limits, start_classroom
from mediagen_nb.classroom._budget import Claim
from mediagen_nb.classroom._hub import HubAuth
from mediagen_nb.classroom._rules import parse_group_limits
from mediagen_nb.client import AuthenticationError, NotFoundError
from mediagen_nb.client._config import resolve_settings
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import student, upstream_of

MODELS = ["nano-banana", "claude-haiku-4-5", "gpt-5.4-low"]


@pytest.fixture
def small_class(tmp_path: Path, marker_emulator: EmulatorHandle) -> Iterator[ClassroomHandle]:
    """Two coded students, three models, 2 images and 600 chat tokens each."""
    with start_classroom(
        ["ann", "bob"],
        models=MODELS,
        limits=Limits(images=2, chat_tokens=600),
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "class",
    ) as handle:
        yield handle


async def test_me_names_the_student_models_limits_and_what_is_left(
    small_class: ClassroomHandle,
) -> None:
    async with student(small_class, small_class.codes["ann"]) as ann:
        me = await ann.classroom.me()
        assert (me.student, me.models, me.paused) == ("ann", sorted(MODELS), False)
        assert me.default_models == {
            "image": "nano-banana",
            "video": None,
            "chat": "gpt-5.4-low",
        }
        assert (me.limits.images, me.limits.videos, me.limits.chat_tokens) == (2, None, 600)
        assert (me.left.images, me.left.chat_tokens) == (2, 600)
        assert me.left_text() == "2 of 2 images left · 600 chat tokens left"
        task = await ann.images.create("nano-banana", prompt="a kite")
        await task.wait()
        reply = await ann.chat.completions.create(
            model="gpt-5.4-low", messages=[{"role": "user", "content": "hi"}], max_tokens=20
        )
        spent = reply.usage.total_tokens if reply.usage else 0
        me = await ann.classroom.me()
        assert (me.used.images, me.left.images) == (1, 1)
        assert me.used.chat_tokens == small_class.usage()[0]["chat_tokens"] > 0
        assert me.left.chat_tokens == 600 - (me.used.chat_tokens or 0)
        assert spent > 0
        assert me.fits(images=1)
        assert not me.fits(images=2)
        small_class.pause()
        assert (await ann.classroom.me()).paused is True
        assert not (await ann.classroom.me()).fits(images=1)


async def test_me_counts_what_running_requests_hold(small_class: ClassroomHandle) -> None:
    held = small_class.state.reserve(Claim("bob", "chat", 250, "gpt-5.4-low", "/v1/chat"))
    assert not isinstance(held, str)
    async with student(small_class, small_class.codes["bob"]) as bob:
        me = await bob.classroom.me()
        assert (me.used.chat_tokens, me.left.chat_tokens) == (250, 350)
        small_class.state.release(held)
        me = await bob.classroom.me()
        assert (me.used.chat_tokens, me.left.chat_tokens) == (0, 600)


async def test_me_needs_a_known_code_and_the_service_has_none(
    small_class: ClassroomHandle, marker_emulator: EmulatorHandle
) -> None:
    async with student(small_class, "mgc-wrongwrong") as stranger:
        with pytest.raises(AuthenticationError):
            await stranger.classroom.me()
    async with student(small_class, marker_emulator.api_key) as direct:
        with pytest.raises(AuthenticationError):
            await direct.classroom.me()  # the upstream key is no student's credential
    from mediagen_nb.client import AsyncClient

    async with AsyncClient(
        api_key=marker_emulator.api_key,
        base_url=marker_emulator.base_url,
        text_base_url=marker_emulator.text_base_url,
        recorder=None,
    ) as service:
        with pytest.raises(NotFoundError):
            await service.classroom.me()


def test_group_limits_parse_in_order_and_name_bad_entries() -> None:
    groups = parse_group_limits("teachers=unlimited,class-7b=images:5,chat-tokens:900,x=videos:1")
    assert list(groups) == ["teachers", "class-7b", "x"]
    assert groups["teachers"] == Limits()
    assert groups["class-7b"] == Limits(images=5, chat_tokens=900)
    with pytest.raises(ValueError, match=r"'pictures:5' is not a limit"):
        parse_group_limits("a=pictures:5")
    with pytest.raises(ValueError, match=r"'images:5' comes before any GROUP="):
        parse_group_limits("images:5")


def _hub_app(users: dict[str, tuple[str, list[str]]], calls: list[str]) -> Starlette:
    """A stand-in for JupyterHub's ``GET /hub/api/user`` (token -> name, groups)."""

    async def user(request: Request) -> JSONResponse:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        calls.append(token)
        if scheme != "token" or token not in users:
            return JSONResponse({"status": 403, "message": "Forbidden"}, status_code=403)
        name, groups = users[token]
        return JSONResponse({"kind": "user", "name": name, "groups": groups})

    return Starlette(routes=[Route("/hub/api/user", user)])


async def test_hub_tokens_sign_students_in_with_their_group_limits(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    calls: list[str] = []
    users = {"tok-ann-123456": ("ann", ["class-7b"]), "tok-tea-123456": ("tess", ["teachers"])}
    hub = HubAuth(
        "http://hub.invalid/hub/api", transport=httpx2.ASGITransport(app=_hub_app(users, calls))
    )
    with start_classroom(
        limits=Limits(images=3),
        group_limits=parse_group_limits("teachers=unlimited,class-7b=images:1"),
        jupyterhub=hub,
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "hub",
    ) as room:
        assert room.hub
        assert room.codes == {}
        async with student(room, "tok-ann-123456") as ann, student(room, "tok-tea-123456") as tess:
            assert (await ann.classroom.me()).limits.images == 1
            await (await ann.images.create("nano-banana", prompt="one")).wait()
            refused = await ann.images.create("nano-banana", prompt="two")
            assert refused.status == "failed"
            assert refused.error == "your class allows 1 image each; you have used 1"
            for prompt in ("a", "b"):
                await (await tess.images.create("nano-banana", prompt=prompt)).wait()
            assert (await tess.classroom.me()).left.images is None
        async with student(room, "tok-nobody-1234") as nobody:
            with pytest.raises(AuthenticationError):
                await nobody.classroom.me()
        rows = {row["student"]: row for row in room.usage()}
        assert (rows["ann"]["images"], rows["tess"]["images"]) == (1, 2)
        assert rows["ann"]["limits"] == {
            "images": 1,
            "videos": None,
            "running": None,
            "chat_tokens": None,
        }
        assert rows["tess"]["limits"]["images"] is None  # teachers: unlimited
        assert calls.count("tok-ann-123456") == 1  # cached: one hub question per token
        assert hub.lookups == 3


def test_a_hub_server_finds_the_gateway_from_its_environment() -> None:
    env = {"MEDIAGEN_CLASSROOM_URL": "http://127.0.0.1:8780/", "JUPYTERHUB_API_TOKEN": "hubtok1"}
    settings = resolve_settings(env=env)
    assert settings.base_url == "http://127.0.0.1:8780/api"
    assert settings.text_base_url == "http://127.0.0.1:8780/gateway"
    assert settings.api_key is not None
    assert settings.api_key.get_secret_value() == "hubtok1"
    assert "hubtok1" not in repr(settings)
    own_key = resolve_settings(env={**env, "MEDIAGEN_API_KEY": "sk-own-key"})
    assert own_key.base_url is None  # a key of one's own is not sent to the class's gateway
    assert resolve_settings(env={"MEDIAGEN_CLASSROOM_URL": "http://x"}).api_key is None


async def test_a_gateway_behind_the_hub_proxy_keeps_its_path_prefix(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    prefix = "/services/mediagen"
    with start_classroom(
        ["ann"],
        prefix=prefix + "/",
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "prefixed",
    ) as room:
        from mediagen_nb.client import AsyncClient

        async with AsyncClient(
            api_key=room.codes["ann"],
            base_url=room.root_url + prefix + "/api",
            text_base_url=room.root_url + prefix + "/gateway",
            recorder=None,
        ) as ann:
            task = await (await ann.images.create("nano-banana", prompt="a kite")).wait()
            url = task.url
            assert url is not None
            assert url.startswith(room.root_url + prefix + "/api/media/")
            assert (await ann.classroom.me()).student == "ann"
        async with httpx2.AsyncClient() as http:
            picture = await http.get(url)
            wall = await http.get(room.root_url + prefix + "/wall")
            plain = await http.get(room.wall_url)  # still served without the prefix
        assert picture.status_code == 200
        assert picture.headers["content-type"].startswith("image/")
        assert (wall.status_code, plain.status_code) == (200, 200)
