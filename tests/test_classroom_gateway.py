"""The classroom gateway end to end: a student with a code does everything the service offers."""

from __future__ import annotations

import httpx2
import pytest

from mediagen_nb.classroom import ClassroomHandle
from mediagen_nb.client import AssetError, AuthenticationError, NotFoundError
from tests._classroom_helpers import student

MESSAGES = [{"role": "user", "content": "Say hello to the class"}]


def first_code(handle: ClassroomHandle) -> str:
    return next(iter(handle.codes.values()))


async def test_chat_and_streamed_chat(classroom: ClassroomHandle) -> None:
    async with student(classroom, first_code(classroom)) as client:
        reply = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
        assert reply.choices[0].message.content
        async with client.chat.completions.stream(model="gpt-5.4", messages=MESSAGES) as stream:
            text = "".join([piece async for piece in stream.text_stream])
    assert text
    used = classroom.usage()[0]
    assert used["student"] == "student-01"
    assert used["chat_tokens"] > 0


async def test_streamed_messages(classroom: ClassroomHandle) -> None:
    async with (
        student(classroom, first_code(classroom)) as client,
        client.messages.stream(
            model="claude-haiku-4-5", max_tokens=200, messages=MESSAGES
        ) as stream,
    ):
        text = "".join([piece async for piece in stream.text_stream])
    assert text


async def test_image_completes_with_media_served_by_the_gateway(
    classroom: ClassroomHandle,
) -> None:
    async with student(classroom, first_code(classroom)) as client:
        task = await client.images.create("nano-banana", prompt="a red kite over hills")
        await task.wait(timeout=30)
        data = await task.read_bytes()
    assert task.status == "completed"
    assert task.url is not None
    assert task.url.startswith(classroom.base_url + "/media/")
    assert data.startswith(b"\x89PNG")
    items = classroom.items()
    assert [(i["student"], i["prompt"], i["kind"]) for i in items] == [
        ("student-01", "a red kite over hills", "image")
    ]


async def test_video_completes(classroom: ClassroomHandle) -> None:
    async with student(classroom, first_code(classroom)) as client:
        task = await client.videos.create(
            "seedance_1_5_pro_480p", content=[{"type": "text", "text": "a paper boat"}], duration=4
        )
        await task.wait(timeout=60)
        data = await task.read_bytes()
    assert task.status == "completed"
    assert data[4:8] == b"ftyp"
    assert classroom.items()[0]["kind"] == "video"


async def test_asset_library_through_the_gateway(classroom: ClassroomHandle) -> None:
    async with student(classroom, first_code(classroom)) as client:
        info = await client.assets.upload("https://example.com/cat.png", "Image", name="cat")
        fetched = await client.assets.get(info.assetId)
        batch = await client.assets.sd2_upload(image_urls=["https://example.com/dog.png"])
    assert fetched.assetId == info.assetId
    assert len(batch.items) == 1


async def test_each_student_sees_only_their_own_tasks(classroom: ClassroomHandle) -> None:
    codes = list(classroom.codes.values())
    async with student(classroom, codes[0]) as alice, student(classroom, codes[1]) as bob:
        task = await alice.images.create("nano-banana", prompt="mine")
        with pytest.raises(NotFoundError, match="no task"):
            await bob.tasks.get(task.id)
        await task.wait(timeout=30)


async def test_wrong_code_is_401(classroom: ClassroomHandle) -> None:
    async with student(classroom, "mgc-notarealcode") as client:
        with pytest.raises(AuthenticationError) as info:
            await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
    assert info.value.status_code == 401


async def test_revoked_code_is_401_from_then_on(classroom: ClassroomHandle) -> None:
    code = classroom.codes["student-02"]
    async with student(classroom, code) as client:
        await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
        classroom.revoke("student-02")
        with pytest.raises(AuthenticationError) as info:
            await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
    assert info.value.status_code == 401
    assert "student-02" not in classroom.codes


async def test_class_code_with_a_name_enrols_the_student(classroom: ClassroomHandle) -> None:
    assert classroom.class_code is not None
    async with student(classroom, f"{classroom.class_code}:alice") as client:
        await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
    names = [row["student"] for row in classroom.usage()]
    assert names[-1] == "alice"
    async with student(classroom, f"{classroom.class_code}:student-01") as client:
        with pytest.raises(AuthenticationError):
            await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
    async with student(classroom, "mgclass-wrong:alice") as client:
        with pytest.raises(AuthenticationError):
            await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)


async def test_anthropic_style_x_api_key_is_accepted(classroom: ClassroomHandle) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            classroom.text_base_url + "/v1/messages",
            json={"model": "claude-haiku-4-5", "max_tokens": 50, "messages": MESSAGES},
            headers={"x-api-key": first_code(classroom), "anthropic-version": "2023-06-01"},
        )
    assert response.status_code == 200
    assert response.json()["type"] == "message"


async def test_oversized_and_malformed_bodies_are_refused(classroom: ClassroomHandle) -> None:
    headers = {"authorization": f"Bearer {first_code(classroom)}"}
    async with httpx2.AsyncClient() as http:
        big = await http.post(
            classroom.base_url + "/v1/banana/images",
            content=b"{" + b" " * (1024 * 1024 + 10) + b"}",
            headers={**headers, "content-type": "application/json"},
        )
        bad = await http.post(
            classroom.base_url + "/v1/banana/images",
            content=b"{not json",
            headers={**headers, "content-type": "application/json"},
        )
    assert big.status_code == 413
    assert bad.status_code == 400
    assert "not valid JSON" in bad.json()["error"]["message"]


async def test_paused_asset_upload_gets_the_envelope(classroom: ClassroomHandle) -> None:
    classroom.pause()
    async with student(classroom, first_code(classroom)) as client:
        with pytest.raises(AssetError, match="paused") as info:
            await client.assets.upload("https://example.com/cat.png", "Image")
    assert info.value.code == "403"
