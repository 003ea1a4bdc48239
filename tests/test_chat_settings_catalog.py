"""Chat settings declared in the catalog: a made-up setting added there appears in the chat
form, is validated and reaches the service; every declared setting round-trips body ->
form settings -> body on each protocol that takes it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest

from mediagen_nb.catalog._chat_settings import (
    CHAT_PROTOCOLS,
    CHAT_SETTINGS,
    ChatSetting,
    register_chat_setting,
)
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.types import ChatProtocol
from mediagen_nb.widgets._chat_fields import choices
from mediagen_nb.widgets._chat_form import defaults, form_spec, settings_of
from mediagen_nb.widgets._chat_options import FIELDS, TOOLS_EXAMPLE, field_of, human
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._chat_request import build_request, settings_from_body
from mediagen_nb.widgets._chat_tool_json import parse_tools
from mediagen_nb.widgets._session import Session

pytestmark = pytest.mark.emulator(speed=1000.0, seed=3)

SEED = ChatSetting(
    "seed",
    "number",
    "Seed",
    "The same seed gives the same reply.",
    wire={"chat_completions": "seed"},
    default=0,
    minimum=1,
    maximum=1000,
    placeholder="e.g. 7",
    aliases=("random_seed",),
)
"""A setting the catalog does not have: chat-completions only, 1 to 1000, 0 is not sent."""


@pytest.fixture
def seed_setting() -> Iterator[ChatSetting]:
    remove = register_chat_setting(SEED)
    yield SEED
    remove()
    assert all(s.key != "seed" for s in CHAT_SETTINGS)


def offline() -> ChatPanel:
    return ChatPanel(session=Session(mode_text="test"))


def _control(panel: ChatPanel, key: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [c for c in panel.spec["settings"] if c["key"] == key]
    assert len(found) == 1, key
    return found[0]


def test_a_made_up_setting_appears_in_the_form(seed_setting: ChatSetting) -> None:
    panel = offline()
    keys = [c["key"] for c in panel.spec["settings"]]
    assert keys[-1] == "seed"
    assert len(keys) == len(CHAT_SETTINGS)
    control = _control(panel, "seed")
    assert (control["control"], control["offered"]) == ("number", True)
    assert (control["minimum"], control["maximum"]) == (1, 1000)
    assert panel.spec["fields"]["seed"] == {
        "label": "Seed",
        "help": "The same seed gives the same reply.",
        "api": "seed",
        "placeholder": "e.g. 7",
    }
    assert panel.values["seed"] == defaults()["seed"] == 0
    assert field_of("seed") == "seed"  # a validator's problem on it shows by the control
    assert field_of("random_seed") == "seed"
    assert human("seed", "random_seed must be odd") == "Seed: the seed must be odd"
    panel.set(protocol="messages")
    assert _control(panel, "seed")["offered"] is False
    with pytest.raises(ValueError, match="'seed' is already declared"):
        register_chat_setting(SEED)


def test_a_made_up_setting_is_validated_in_the_users_words(seed_setting: ChatSetting) -> None:
    panel = offline()
    panel.set(message="hello", seed=5000)
    assert panel.problems == {"seed": "Seed: must be at most 1000"}
    assert not panel.can_send
    assert panel.hint == "Seed: must be at most 1000"
    panel.set(seed="-3")  # typed text becomes a whole number, then the rule speaks
    assert panel.values["seed"] == -3
    assert panel.problems == {"seed": "Seed: must be at least 1"}
    panel.set(seed=7)
    assert panel.problems == {}
    assert panel.can_send
    assert "seed=7" in panel.code
    panel.set(protocol="messages")  # not offered there: kept in the form, never sent
    assert panel.can_send
    assert "seed" not in panel.code


def test_a_made_up_setting_loads_back_from_a_recorded_request(seed_setting: ChatSetting) -> None:
    panel = offline()
    panel.load({"model": "gpt-5.5", "seed": 42, "messages": [{"role": "user", "content": "hi"}]})
    assert (panel.values["seed"], panel.values["message"]) == (42, "hi")
    assert panel.settings().extra == {"seed": 42}
    with pytest.raises(TypeError, match="unknown chat field"):
        panel.set(colour="red")


class Recorder(httpx2.AsyncBaseTransport):
    """A real transport that keeps the JSON body of every POST it sends."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST":
            self.bodies.append(json.loads(await request.aread()))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
async def recorded(emulator: EmulatorHandle) -> AsyncIterator[tuple[ChatPanel, Recorder]]:
    recorder = Recorder()
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
        transport=recorder,
    ) as client:
        panel = ChatPanel(session=Session(client=client))
        yield panel, recorder
        panel.stop()
        await panel.join()
        panel.close()


async def test_a_made_up_setting_is_sent_to_the_service(
    seed_setting: ChatSetting, recorded: tuple[ChatPanel, Recorder]
) -> None:
    panel, recorder = recorded
    panel.set(model="gpt-5.5", seed=7, max_tokens=50)
    await panel.send("hello")
    assert panel.transcript[-1].state == "complete", panel.transcript[-1].error
    assert len(recorder.bodies) == 1
    sent = recorder.bodies[0]
    assert (sent["seed"], sent["max_completion_tokens"], sent["model"]) == (7, 50, "gpt-5.5")
    panel.set(seed=0)  # the value that sends nothing
    await panel.send("again")
    assert len(recorder.bodies) == 2
    assert "seed" not in recorder.bodies[1]


# --- every declared setting round-trips ------------------------------------------------------


def _sample(setting: ChatSetting, protocol: ChatProtocol) -> Any:
    """A value of ``setting`` that is not its default and that its rules accept."""
    if setting.control in ("segmented", "select"):
        return next(v for v, _label in choices(setting, protocol) if v != setting.default)
    if setting.control == "number":
        return int(setting.minimum) if setting.minimum is not None else 1
    if setting.control == "slider":
        high = setting.maximum_for(protocol)
        assert setting.minimum is not None
        assert high is not None
        return round((setting.minimum + high) / 4, 2)
    if setting.control == "lines":
        return "\n".join(f"END{i}" for i in range(setting.max_items or 2))
    if setting.control == "json":
        return TOOLS_EXAMPLE
    return "Answer in one sentence."


def _values_for(setting: ChatSetting, protocol: ChatProtocol) -> dict[str, Any]:
    """Form values that send ``setting`` (and whatever makes it shown) on ``protocol``."""
    values: dict[str, Any] = {"protocol": protocol, setting.key: _sample(setting, protocol)}
    when = setting.show_when
    if when is not None:
        other = next(s for s in CHAT_SETTINGS if s.key == when[0])
        values[other.key] = when[1][0] if when[1] else _sample(other, protocol)
    return values


CASES = [
    (setting.key, protocol)
    for setting in CHAT_SETTINGS
    for protocol in CHAT_PROTOCOLS
    if setting.offered(protocol)
]


@pytest.mark.parametrize(("key", "protocol"), CASES)
def test_every_declared_setting_round_trips(key: str, protocol: ChatProtocol) -> None:
    setting = next(s for s in CHAT_SETTINGS if s.key == key)
    values = {**_values_for(setting, protocol), "model": "claude-sonnet-4-6"}
    settings = settings_of(values)
    messages = [{"role": "user", "content": "hi"}]
    body = build_request(settings, messages)
    if setting.send != "selector":
        assert body != build_request(settings_of({"protocol": protocol}), messages), key
    back, draft = settings_from_body(body)
    assert draft == "hi"
    if setting.control == "json":  # the tools come back in the wire's shape: the same tools
        assert parse_tools(back.get(key)) == parse_tools(settings.get(key))
    else:
        assert back.get(key) == settings.get(key), key
    assert back.protocol == protocol
    assert build_request(back, messages) == body


def test_the_cases_cover_every_setting_on_each_protocol_that_takes_it() -> None:
    assert {key for key, _p in CASES} == {s.key for s in CHAT_SETTINGS}
    by_protocol = {p: sorted(k for k, q in CASES if q == p) for p in CHAT_PROTOCOLS}
    assert by_protocol == {
        "chat_completions": sorted(
            ["system", "sampling", "temperature", "top_p", "max_tokens", "stop", "tools",
             "tool_choice"]
        ),
        "messages": sorted(
            ["system", "sampling", "temperature", "max_tokens", "tools", "tool_choice",
             "thinking_budget"]
        ),
    }  # fmt: skip


def test_a_chosen_temperature_is_sent_even_at_its_default() -> None:
    for protocol in CHAT_PROTOCOLS:
        settings = settings_of({"protocol": protocol, "sampling": "temperature"})
        assert build_request(settings, [])["temperature"] == 1.0


def test_labels_and_api_names_come_from_the_declaration() -> None:
    spec = form_spec(settings_of({"model": "gpt-5.5", "protocol": "messages"}))
    for setting in CHAT_SETTINGS:
        assert FIELDS[setting.key].label == spec["fields"][setting.key]["label"] == setting.label
    assert FIELDS["thinking_budget"].api == "thinking.budget_tokens"
    assert FIELDS["temperature"].api == "temperature"
    temperature = next(c for c in spec["settings"] if c["key"] == "temperature")
    assert temperature["maximum"] == 1.0  # the messages protocol's own maximum
    length = next(c for c in spec["settings"] if c["key"] == "max_tokens")
    assert length["maximum"] == 128_000  # the model's longest reply
