"""What the client-side edge tests share: a transport that must stay silent, and checks.

``refused`` asserts both halves of "bad input never reaches the network": the first error of
``validate_request`` is on the field with the rule's words, and the ``AsyncClient`` raises
``RequestValidationError`` with the same problem while its transport sees no request.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mediagen_nb.catalog import family_for_path
from mediagen_nb.client import AsyncClient, RequestValidationError
from mediagen_nb.types import Problem, validate_request
from mediagen_nb.types._problem import errors_only
from tests._support import KEY

BASE = "http://svc.test/api"
TEXT = "http://svc.test/gateway"
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
SEEDANCE = "/v1/seedance/videos"
SEEDANCE2_UPLOAD = "/svcVideo2/asset/upload"
SD2_UPLOAD = "/asset/sd2Manxue/assetUpload"
IMG = "https://example.com/ref.png"
USER_HI = [{"role": "user", "content": "hi"}]


class NoNetwork(httpx2.AsyncBaseTransport):
    """Counts requests; any request at all fails the test."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(f"{request.method} {request.url}")
        pytest.fail(f"refused input reached the network: {request.method} {request.url}")


def silent_client(wire: NoNetwork) -> AsyncClient:
    """A client whose every request goes to ``wire`` (and so fails the test)."""
    return AsyncClient(KEY, BASE, TEXT, wire, recorder=None, max_retries=0)


async def send(client: AsyncClient, path: str, body: dict[str, Any]) -> Any:
    """The public client call that sends ``body`` to ``path``."""
    fam = family_for_path(path)
    if fam is not None:
        params = {k: v for k, v in body.items() if k != "model"}
        resource = client.images if fam.kind == "image" else client.videos
        return await resource.create(body["model"], family=fam.id, **params)
    if path == CHAT:
        return await client.chat.completions.create(**body)
    if path == MESSAGES:
        return await client.messages.create(**body)
    if path == SEEDANCE2_UPLOAD:
        return await client.assets.upload(body["url"], body["assetType"])
    assert path == SD2_UPLOAD
    return await client.assets.sd2_upload(
        image_urls=body.get("imageUrls", ()),
        video_urls=body.get("videoUrls", ()),
        audio_urls=body.get("audioUrls", ()),
    )


def errors_of(path: str, body: Any, **kw: Any) -> list[Problem]:
    """``validate_request``'s errors (warnings left out)."""
    return errors_only(validate_request(path, body, **kw))


def assert_clean(path: str, body: Any, **kw: Any) -> None:
    """No error and no warning."""
    assert validate_request(path, body, **kw) == []


def assert_error(path: str, body: Any, field: str, *words: str, **kw: Any) -> Problem:
    """An error on exactly ``field`` whose rule mentions every word, said as a sentence."""
    errors = errors_of(path, body, **kw)
    hits = [p for p in errors if p.field == field]
    assert hits, f"no error on {field!r}: {errors}"
    problem = next((p for p in hits if all(w.lower() in p.rule.lower() for w in words)), None)
    assert problem is not None, f"{field!r} errors do not mention {words}: {hits}"
    assert str(problem) == f"{field}: {problem.rule}"
    assert len(problem.rule) > 8  # a sentence, not a code
    return problem


def assert_warning_only(path: str, body: Any, field: str, *words: str) -> None:
    """Warnings only (the request may go), one of them on ``field`` with every word."""
    problems = validate_request(path, body)
    assert problems
    assert all(p.severity == "warning" for p in problems), problems
    assert any(
        p.field == field and all(w.lower() in p.rule.lower() for w in words) for p in problems
    ), problems


def first_error(path: str, body: Any, field: str, *words: str, **kw: Any) -> Problem:
    """``validate_request``'s first error is on ``field`` and its rule says every word."""
    errors = errors_only(validate_request(path, body, **kw))
    assert errors, f"accepted: {body}"
    problem = errors[0]
    assert problem.field == field, errors
    for word in words:
        assert word.lower() in problem.rule.lower(), problem
    return problem


async def refused(
    client: AsyncClient, wire: NoNetwork, path: str, body: dict[str, Any], field: str, *words: str
) -> None:
    """Refused by ``validate_request`` and by the client, which sends nothing."""
    problem = first_error(path, body, field, *words)
    with pytest.raises(RequestValidationError) as info:
        await send(client, path, body)
    assert info.value.problems[0] == problem
    assert str(problem) in str(info.value)
    assert wire.sent == []
