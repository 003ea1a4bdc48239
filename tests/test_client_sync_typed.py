"""The blocking ``Client`` has the async client's namespaces, methods and parameters, typed.

Each public method of an ``AsyncClient`` namespace has a blocking twin with the same
parameter names, kinds and defaults, so a method added to the async client and forgotten on
the blocking one fails here (the blocking namespaces are written out, not proxied, so that
editors and mypy see their signatures).
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from mediagen_nb.client import AsyncClient, Client
from mediagen_nb.client._assets import Assets
from mediagen_nb.client._chat import Completions, Messages
from mediagen_nb.client._media import Images, Tasks, Videos
from mediagen_nb.client._sync_resources import (
    SyncAssets,
    SyncCompletions,
    SyncMedia,
    SyncMessages,
    SyncTasks,
)
from mediagen_nb.emulator import EmulatorHandle

PAIRS: list[tuple[type[Any], type[Any]]] = [
    (Completions, SyncCompletions),
    (Messages, SyncMessages),
    (Images, SyncMedia),
    (Videos, SyncMedia),
    (Tasks, SyncTasks),
    (Assets, SyncAssets),
]


def _public_methods(cls: type[Any]) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(cls, callable)
        if not name.startswith("_")
    }


def _parameters(signature: inspect.Signature) -> list[tuple[str, Any, Any]]:
    return [(p.name, p.kind, p.default) for p in signature.parameters.values() if p.name != "self"]


@pytest.mark.parametrize(("async_cls", "sync_cls"), PAIRS, ids=lambda c: c.__name__)
def test_every_async_method_has_a_blocking_twin_with_its_parameters(
    async_cls: type[Any], sync_cls: type[Any]
) -> None:
    wanted = _public_methods(async_cls)
    have = _public_methods(sync_cls)
    assert sorted(wanted) == sorted(have)
    for name, signature in wanted.items():
        assert _parameters(have[name]) == _parameters(signature), name


def test_client_takes_the_async_clients_arguments() -> None:
    assert _parameters(inspect.signature(Client.__init__)) == _parameters(
        inspect.signature(AsyncClient.__init__)
    )


@pytest.mark.emulator(speed=1000.0, seed=3)
def test_blocking_calls_return_typed_results(emulator: EmulatorHandle) -> None:
    with Client(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        reply = client.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "hi"}]
        )
        assert reply.choices[0].message.content
        with client.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=64,
            messages=[{"role": "user", "content": "hi"}],
        ) as stream:
            text = "".join(stream.text_stream)
        assert text == stream.get_final_message().text
        task = client.images.create("nano-banana", prompt="a red fox").wait()
        assert task.status == "completed"
        assert client.tasks.get(task.id).status == "completed"
        assert client.assets.asset_uri("asset-1") == "asset://asset-1"
