"""The newcomer's list of issue 29, form by form: a reply length bounded by the model, sizes
out of range said so, placeholders and help that pass their own validators (every control of
every family), ranges derived from the rule, a size help that says each thing once."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mediagen_nb import validate_request
from mediagen_nb.catalog import TEXT_MODELS, families, family
from mediagen_nb.catalog._controls import Control, controls_for, extra_example
from mediagen_nb.types import ChatProtocol
from mediagen_nb.types._problem import errors_only
from mediagen_nb.widgets._chat_form import form_spec as chat_form_spec
from mediagen_nb.widgets._chat_options import FIELDS, TOOLS_EXAMPLE, ChatSettings
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._chat_request import build_request, form_problems
from mediagen_nb.widgets._form_state import check, defaults
from mediagen_nb.widgets._session import Session

HUGE = "99999999999999999999"


def offline() -> ChatPanel:
    return ChatPanel(session=Session(mode_text="test"))


# --- 1. Max reply length -------------------------------------------------------------------


def test_every_text_model_has_a_longest_reply() -> None:
    limits = {name: model.max_output_tokens for name, model in TEXT_MODELS.items()}
    assert len(limits) == len(TEXT_MODELS) > 0
    assert all(8_000 <= n <= 1_000_000 for n in limits.values())
    # a suffix variant shares its base's limit
    assert limits["claude-haiku-4-5-hc"] == limits["claude-haiku-4-5"] == 64_000
    assert limits["claude-sonnet-4-6-fd"] == limits["claude-sonnet-4-6"] == 128_000


@pytest.mark.parametrize(
    ("module", "vendor"),
    [("langchain_anthropic.data._profiles", "claude"), ("langchain_openai.data._profiles", "gpt")],
)
def test_no_sdk_default_reply_length_is_refused(module: str, vendor: str) -> None:
    """LangChain sends its model profile's ``max_output_tokens`` when none is given."""
    profiles = pytest.importorskip(module)._PROFILES
    bases = {m.base for m in TEXT_MODELS.values() if m.vendor == vendor}
    compared = {b: profiles[b]["max_output_tokens"] for b in bases if b in profiles}
    assert len(compared) == len(bases)
    for base, sent in compared.items():
        assert TEXT_MODELS[base].max_output_tokens >= sent, base


@pytest.mark.parametrize("protocol", ["chat_completions", "messages"])
def test_a_huge_reply_length_is_refused_with_the_models_range(protocol: str) -> None:
    panel = offline()
    panel.set(message="hello", protocol=protocol)
    assert panel.can_send
    panel.set(max_tokens=HUGE)
    assert not panel.can_send
    rule = "must be at most 128,000 (claude-sonnet-4-6's longest reply)"
    assert panel.problems == {"max_tokens": f"Max reply length: {rule}"}
    panel.set(max_tokens=128_000)
    assert panel.problems == {}
    assert panel.can_send


def test_a_negative_reply_length_stays_and_is_named() -> None:
    panel = offline()
    panel.set(message="hello", max_tokens=-5)
    assert panel.values["max_tokens"] == -5  # not silently emptied
    assert panel.problems == {"max_tokens": "Max reply length: must be at least 1"}
    assert not panel.can_send
    panel.set(max_tokens="")
    assert panel.values["max_tokens"] == 0  # empty: the service's default
    assert panel.problems == {}


def test_the_form_offers_the_models_range() -> None:
    for name in ("claude-sonnet-4-6", "gpt-5.5-low", "gemini-2.5-pro"):
        limit = TEXT_MODELS[name].max_output_tokens
        spec = chat_form_spec(ChatSettings(model=name))
        assert spec["max_tokens_max"] == limit
        assert f"1 to {limit:,} for this model" in spec["fields"]["max_tokens"]["help"]


@pytest.mark.parametrize(
    ("path", "field"),
    [("/v1/chat/completions", "max_completion_tokens"), ("/v1/messages", "max_tokens")],
)
def test_the_validator_bounds_programmatic_calls_too(path: str, field: str) -> None:
    body: dict[str, Any] = {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": "hi"}],
        field: int(HUGE),
    }
    found = errors_only(validate_request(path, body))
    assert [(p.field, p.rule) for p in found] == [
        (field, "must be at most 128,000 (gpt-5.4's longest reply)")
    ]
    assert errors_only(validate_request(path, {**body, field: 128_000})) == []
    # a model the catalog does not know: no upper bound to name, only the model
    unknown = validate_request(path, {**body, "model": "gpt-9", field: 10**9})
    assert [p.field for p in errors_only(unknown)] == ["model"]


# --- 2 and 4. Every placeholder and range help passes its own validator --------------------

ALL_FAMILIES = [f.id for kind in ("image", "video") for f in families(kind)]


def _values(family_id: str, model: str, control: Control, value: Any) -> dict[str, Any]:
    values = {**defaults(family_id), "model": model, "prompt": "a lighthouse at dusk"}
    if control.show_when is not None:  # shown by a selector: choose an option that shows it
        values[control.show_when[0]] = control.show_when[1][0]
    values[control.key] = value
    return values


def _errors_of(family_id: str, model: str, control: Control, value: Any) -> list[str]:
    found = check(family_id, _values(family_id, model, control, value))
    return [p.message for p in found if p.error and p.key == control.key]


def _models(family_id: str) -> tuple[str, ...]:
    return family(family_id).models or ("a-model-of-my-account",)


def _stated(text: str) -> set[int] | None:
    """The whole numbers a range text allows ("2 to 12, or -1"); None when it states none."""
    pattern = r"(-?\d+) to (-?\d+)\b"
    ranges = re.findall(pattern, text)
    if not ranges:
        return None
    allowed = {n for low, high in ranges for n in range(int(low), int(high) + 1)}
    allowed |= {int(n) for n in re.findall(r"\bor (-?\d+)", re.sub(pattern, "", text))}
    return allowed


def _number_texts() -> list[tuple[str, str, str]]:
    return [
        (fid, c.key, text)
        for fid in ALL_FAMILIES
        for c in controls_for(fid)
        if c.type == "number"
        for text in (c.placeholder, c.help)
        if _stated(text) is not None
    ]


@pytest.mark.parametrize(("family_id", "key", "text"), _number_texts())
def test_a_stated_range_is_exactly_what_the_validator_takes(
    family_id: str, key: str, text: str
) -> None:
    allowed = _stated(text)
    assert allowed
    control = next(c for c in controls_for(family_id) if c.key == key)
    for model in _models(family_id):
        window = range(min(allowed) - 3, max(allowed) + 4)
        taken = {n for n in window if not _errors_of(family_id, model, control, n)}
        assert taken == allowed, f"{family_id} {key} {text!r} on {model}"


def test_seedance_says_its_rule() -> None:
    duration = next(c for c in controls_for("seedance") if c.key == "duration")
    assert duration.placeholder == "2 to 12, or -1."
    assert (duration.minimum, duration.maximum) == (2, 12)


def _example_of(placeholder: str) -> str:
    return placeholder.removeprefix("e.g. ")


@pytest.mark.parametrize("family_id", ALL_FAMILIES)
def test_every_placeholder_passes_the_validator(family_id: str) -> None:
    checked = 0
    for model in _models(family_id):
        for c in controls_for(family_id):
            if not c.placeholder or c.type == "number":  # ranges: the test above
                continue
            if c.type in ("ref", "refs"):
                assert set(re.findall(r"[a-z]+://", c.placeholder)) <= {"https://", "asset://"}
                for scheme, sample in (
                    ("https://", "https://example.com/a.png"),
                    ("asset://", "asset://asset-20260101-abc"),
                ):
                    value = [sample] if c.type == "refs" else sample
                    named = scheme in c.placeholder
                    errors = _errors_of(family_id, model, c, value)
                    assert (not errors) == named, (family_id, c.key, model, scheme, errors)
            else:
                example = _example_of(c.placeholder)
                assert not _errors_of(family_id, model, c, example), (family_id, c.key, model)
            checked += 1
        extra = extra_example(family_id)
        values = {**defaults(family_id), "model": model, "prompt": "a lighthouse", "extra": extra}
        found = check(family_id, values)
        assert [p.message for p in found if p.error] == [], (family_id, model, extra)
        if model == _models(family_id)[0]:  # the default model: not even a warning
            assert [p.message for p in found if p.key == "extra"] == [], (family_id, extra)
    assert checked > 0


def test_image2_more_parameters_placeholder_is_accepted() -> None:
    values = {**defaults("image2"), "prompt": "a fox", "extra": extra_example("image2")}
    assert check("image2", values) == []


def _chat_value(name: str, placeholder: str) -> Any:
    """What a chat placeholder stands for: "e.g. X" is X; a number field's "default" is
    empty (the service's default) and "0 (off)" is 0."""
    if name in ("max_tokens", "thinking_budget"):
        number = re.match(r"-?\d+", placeholder)
        return int(number[0]) if number else ""
    return placeholder.removeprefix("e.g. ")


@pytest.mark.parametrize("protocol", ["chat_completions", "messages"])
def test_chat_placeholders_and_examples_pass_the_validator(protocol: ChatProtocol) -> None:
    shown = chat_form_spec(ChatSettings(model="claude-sonnet-4-6", protocol=protocol))["fields"]
    placeholders = {k: f["placeholder"] for k, f in shown.items() if f["placeholder"]}
    assert set(placeholders) == {"system", "max_tokens", "stop", "tools", "thinking_budget"}
    for name, placeholder in placeholders.items():
        panel = offline()
        panel.set(message="hello", protocol=protocol)
        panel.set(**{name: _chat_value(name, placeholder)})
        assert panel.problems == {}, (name, placeholder)
        assert panel.can_send, (name, placeholder)
    panel = offline()
    panel.set(message="hello", protocol=protocol, tools=TOOLS_EXAMPLE)  # "Insert example"
    assert panel.problems == {}
    settings = panel.settings()
    assert form_problems(settings) == []
    body = build_request(settings, [{"role": "user", "content": "hi"}])
    assert errors_only(validate_request(settings.path, body)) == []
    assert "at least 1" in FIELDS["max_tokens"].help  # the rule, as the validator says it


# --- 3. A size out of range is said so -----------------------------------------------------


@pytest.mark.parametrize("size", [HUGE + "x16", "16x" + HUGE, "1" * 4000 + "x1024"])
def test_a_huge_size_is_out_of_range_not_malformed(size: str) -> None:
    found = errors_only(
        validate_request(
            "/v1/image2/images", {"model": "gpt-image-2", "prompt": "a fox", "size": size}
        )
    )
    digits = max(len(edge) for edge in size.split("x"))
    assert [(p.field, p.rule) for p in found] == [
        ("size", f"each edge must be at most 3840 px (got a {digits}-digit number)")
    ]


def test_the_form_names_the_size_range() -> None:
    values = {**defaults("image2"), "prompt": "a fox", "size": HUGE + "x16"}
    assert [p.message for p in check("image2", values) if p.error] == [
        "Exact size (px): each edge must be at most 3840 px (got a 20-digit number)"
    ]


# --- 5. The exact-size help says each thing once -------------------------------------------


def _clauses(text: str) -> list[str]:
    parts = re.split(r"[.;:]\s*", text.lower())
    return [re.sub(r"\s+", " ", p).strip() for p in parts if p.strip()]


def test_the_exact_size_help_does_not_repeat_itself() -> None:
    size = next(c for c in controls_for("image2") if c.key == "size")
    values = {**defaults("image2"), "prompt": "a fox", "size": "1536x1024"}
    warnings = [p.message for p in check("image2", values) if p.key == "size" and not p.error]
    assert warnings == ["Exact size (px): overrides resolution and ratio; those are ignored"]
    shown = " ".join([size.help, *warnings])  # what the front end shows under the field
    words = [w for w in _clauses(shown) if w != size.label.lower()]
    assert len(words) == len(set(words)), shown
    assert "overrides" not in size.help  # said by the warning, when it applies
    assert "exact" not in size.help.lower()  # the label says it
    for number in ("16", "3840", "655,360", "8,294,400"):  # the rule's numbers, from the catalog
        assert number in size.help
    assert not errors_only(
        validate_request(
            "/v1/image2/images",
            {"model": "gpt-image-2", "prompt": "a", "size": _example_of(size.placeholder)},
        )
    )
