"""Copy as code never turns what a user or a model wrote into code (issue 32, row 1).

Hypothesis writes messages, model replies, system prompts, file names and image prompts full
of what broke the old string substitution (attachment markers such as ``@@file:open:w@@``,
quotes, backslashes, newlines, line separators, lone surrogates). Properties: the snippet
parses; it calls nothing but the client, its own file helpers and what the template itself
uses; and every text comes back exactly when the call's arguments are evaluated.
"""

from __future__ import annotations

import ast
import base64
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediagen_nb.widgets._chat_code import chat_code
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._codegen import code_for
from mediagen_nb.widgets._session import Session
from tests._support import FUZZ_RANDOM

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=not FUZZ_RANDOM,
    suppress_health_check=[HealthCheck.too_slow],
)
SHAPES = (
    "@@file:open:w@@",
    '"@@file:open:w@@"',
    "@@file:b64:image/png@@",
    '"@@file:data_url:x@@"',
    "@@",
    '"',
    "'",
    '"""',
    "\\",
    "\\n",
    "\n",
    "\r",
    "\x00",
    "\u2028",
    "\ud800",
    "{x}",
    '"), __import__("os").system("id"), ("',
    "__import__('os')",
    "#",
)
TEXTS = st.lists(st.one_of(st.sampled_from(SHAPES), st.text(max_size=8)), max_size=6).map("".join)
CALLS = {
    "AsyncClient",
    "client.chat.completions.create",
    "client.messages.create",
    "client.images.create",
    "client.videos.create",
    "print",
    "stream.get_final_completion",
    "stream.get_final_message",
    "task.wait",
    "task.read_bytes",
}
HELPER_CALLS = {"b64", "data_url", "base64.b64encode", "pathlib.Path", "decode", "read_bytes"}
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


def _tree(code: str) -> ast.Module:
    """The snippet as the body of an async cell (it uses top-level ``await``)."""
    cell = "async def cell():\n" + "".join(f"    {line}\n" for line in code.splitlines())
    return ast.parse(cell)


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = _called(func.value)
        return f"{inner}.{func.attr}" if inner else func.attr
    return ""


def _calls(tree: ast.Module) -> list[str]:
    """Every call in the snippet, by dotted name (``x().read_bytes`` gives ``read_bytes``)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called(node.func)
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call):
                name = node.func.attr
            names.append(name)
    return names


def _value(node: ast.expr) -> Any:
    """An argument's value: literals evaluated, the file helpers as ``("b64", name, type)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        assert node.func.id in ("b64", "data_url")
        assert not node.keywords
        return (node.func.id, *(ast.literal_eval(a) for a in node.args))
    if isinstance(node, ast.List):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        assert None not in node.keys  # no ``**`` inside a literal
        pairs = zip(node.keys, node.values, strict=True)
        return {ast.literal_eval(k): _value(v) for k, v in pairs if k is not None}
    return ast.literal_eval(node)


def _arguments(tree: ast.Module, create: str) -> dict[str, Any]:
    """The keyword arguments of the snippet's one ``create`` call, evaluated."""
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _called(n.func) == create]
    assert len(found) == 1
    out: dict[str, Any] = {}
    for item in found[0].keywords:
        value = _value(item.value)
        if item.arg is None:
            out.update(value)
        else:
            out[item.arg] = value
    return out


def _check(code: str, create: str, allowed: set[str]) -> dict[str, Any]:
    tree = _tree(code)
    assert set(_calls(tree)) <= allowed, set(_calls(tree)) - allowed
    return _arguments(tree, create)


@st.composite
def _chat_bodies(draw: st.DrawFn) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """(body, attached file names, the body as the snippet should read it back)."""
    names = draw(st.lists(TEXTS, max_size=2))
    messages: list[dict[str, Any]] = []
    expected: list[dict[str, Any]] = []
    for role in draw(st.lists(st.sampled_from(["user", "assistant", "system"]), max_size=4)):
        text = draw(TEXTS)
        messages.append({"role": role, "content": text})
        expected.append({"role": role, "content": text})
    parts: list[dict[str, Any]] = [{"type": "text", "text": draw(TEXTS)}]
    seen: list[dict[str, Any]] = [dict(parts[0])]
    for index in range(len(names) + draw(st.integers(0, 1))):
        name = names[index] if index < len(names) else f"image{index + 1}"
        media_type = draw(st.sampled_from(["image/png", draw(TEXTS)]))
        data = base64.b64encode(PNG).decode()
        parts.append(
            {"type": "image_url", "image_url": {"url": f"data:{media_type};base64,{data}"}}
        )
        seen.append({"type": "image_url", "image_url": {"url": ("data_url", name, media_type)}})
    messages.append({"role": "user", "content": parts})
    expected.append({"role": "user", "content": seen})
    extra = draw(st.dictionaries(TEXTS.filter(lambda k: k not in ("model", "messages")), TEXTS))
    body = {"model": draw(TEXTS), "messages": messages, **extra}
    return body, names, {**body, "messages": expected}


@FUZZ
@given(_chat_bodies())
def test_chat_snippet_is_python_that_calls_only_the_client(
    case: tuple[dict[str, Any], list[str], dict[str, Any]],
) -> None:
    body, names, want = case
    code = chat_code("/v1/chat/completions", body, names)
    got = _check(code, "client.chat.completions.create", CALLS | HELPER_CALLS)
    assert got == {**{k: v for k, v in want.items() if k != "stream"}, "stream": True}


@FUZZ
@given(TEXTS, TEXTS)
def test_messages_snippet_reads_base64_sources_through_the_helper(name: str, text: str) -> None:
    source = {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}
    content = [{"type": "image", "source": source}, {"type": "text", "text": text}]
    body = {
        "model": "claude-opus-4-6",
        "max_tokens": 64,
        "system": text,
        "messages": [{"role": "user", "content": content}],
    }
    got = _check(
        chat_code("/v1/messages", body, [name]), "client.messages.create", CALLS | HELPER_CALLS
    )
    assert got["system"] == text
    assert got["messages"][0]["content"] == [
        {"type": "image", "source": {**source, "data": ("b64", name, "image/png")}},
        {"type": "text", "text": text},
    ]


@FUZZ
@given(TEXTS, st.dictionaries(TEXTS, TEXTS, max_size=3))
def test_media_snippet_is_python_that_calls_only_the_client(
    prompt: str, extra: dict[str, str]
) -> None:
    body = {"model": "veo-3", "prompt": prompt, **{k: v for k, v in extra.items() if k != "model"}}
    code = code_for("video", body, family="veo")
    got = _check(code, "client.videos.create", CALLS)
    assert got == {**body, "family": "veo"}


def test_a_message_that_is_exactly_a_marker_stays_text_in_the_panel() -> None:
    panel = ChatPanel(session=Session(mode_text="test"))
    panel.set(message="@@file:open:w@@", system='a "@@file:b64:image/png@@" b')
    panel.attach_file("photo.png", "image/png", PNG)
    tree = _tree(panel.code)
    assert "open" not in _calls(tree)
    assert _calls(tree).count("data_url") == 1
    got = _arguments(tree, "client.chat.completions.create")
    texts = [m["content"] for m in got["messages"]]
    assert texts[0] == 'a "@@file:b64:image/png@@" b'
    assert texts[-1][0] == {"type": "text", "text": "@@file:open:w@@"}
    assert texts[-1][1]["image_url"]["url"] == ("data_url", "photo.png", "image/png")
