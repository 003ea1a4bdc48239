"""Moderation a teacher controls: prompt rules refuse before the upstream, at no cost; the
teacher sees each refusal; rules and their bounds behave as documented."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from mediagen_nb._serverkit.runner import serve_in_thread
from mediagen_nb.classroom import ClassroomHandle, Limits, Upstream, start_classroom
from mediagen_nb.classroom._moderation import (
    MAX_RULE_CHARS,
    MAX_RULES,
    NEUTRAL_REFUSAL,
    Moderation,
    chat_texts,
    check_rules,
    read_rules,
)
from mediagen_nb.client import APIError
from mediagen_nb.client._config import Secret
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import student
from tests.test_classroom_edges import read_until

BLOCKED = ["dragon", "spooky ghost", r"re:b[a4]d\s*w[o0]rd"]


class Counting:
    """An ASGI wrapper counting the requests that reach the upstream, by method and path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.seen: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.seen[f"{scope['method']} {scope['path']}"] += 1
        await self.app(scope, receive, send)

    def sent(self) -> int:
        """Creates and chats (polls and media downloads left out)."""
        return sum(n for key, n in self.seen.items() if key.startswith("POST "))


@pytest.fixture
def counted(marker_emulator: EmulatorHandle) -> Iterator[tuple[Counting, Upstream]]:
    """The marker emulator behind a counting server (the gateway's upstream)."""
    counting = Counting(marker_emulator.app)
    server, thread, port = serve_in_thread(counting, "127.0.0.1", 0, what="the counting upstream")
    root = f"http://127.0.0.1:{port}"
    try:
        yield (
            counting,
            Upstream(
                root + "/api",
                root + "/gateway",
                Secret(marker_emulator.api_key),
                kind="emulator",
                speed=marker_emulator.speed,
            ),
        )
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def ruled(tmp_path: Path, counted: tuple[Counting, Upstream]) -> Iterator[ClassroomHandle]:
    with start_classroom(
        2,
        upstream=counted[1],
        folder=tmp_path / "class",
        blocked=BLOCKED,
        limits=Limits(images=1, chat_tokens=100_000),
    ) as handle:
        yield handle


def code(handle: ClassroomHandle, n: int = 1) -> str:
    return handle.codes[f"student-{n:02d}"]


async def test_a_refused_prompt_never_reaches_the_upstream_and_costs_nothing(
    ruled: ClassroomHandle, counted: tuple[Counting, Upstream]
) -> None:
    counting = counted[0]
    async with student(ruled, code(ruled)) as client:
        refused = await client.images.create("nano-banana", prompt="A DRAGON over the hills")
        assert (refused.status, refused.error) == ("failed", NEUTRAL_REFUSAL)
        video = await client.videos.create("neutralSora2Plus", prompt="a spooky   ghost walks")
        assert video.error == NEUTRAL_REFUSAL
        with pytest.raises(APIError) as chat:
            await client.chat.completions.create(
                model="gpt-5.4", messages=[{"role": "user", "content": "say b4d  w0rd twice"}]
            )
        assert chat.value.status_code == 403
        assert NEUTRAL_REFUSAL in str(chat.value)
        with pytest.raises(APIError) as message:
            await client.messages.create(
                model="claude-haiku-4-5",
                max_tokens=50,
                messages=[{"role": "user", "content": [{"type": "text", "text": "dragon?"}]}],
            )
        assert message.value.status_code == 403
        assert counting.sent() == 0
        used = ruled.usage()[0]
        assert (used["images"], used["videos"], used["chat_tokens"]) == (0, 0, 0)
        # whole words only: "dragonfly" and "ghost" alone pass, and the one image allowed
        # (limits: 1) is still free
        task = await client.images.create("nano-banana", prompt="a dragonfly and a ghost")
        await task.wait(timeout=30)
    assert task.status == "completed"
    assert counting.sent() == 1
    seen = ruled.refusals()
    assert [(r["student"], r["where"], r["asked"], r["rule"]) for r in seen] == [
        ("student-01", "/v1/messages", "chat · claude-haiku-4-5", "dragon"),
        ("student-01", "/v1/chat/completions", "chat · gpt-5.4", BLOCKED[2]),
        ("student-01", "sora", "video · neutralSora2Plus", "spooky ghost"),
        ("student-01", "banana", "image · nano-banana", "dragon"),
    ]
    assert [r["prompt"] for r in seen] == [
        "dragon?",
        "say b4d  w0rd twice",
        "a spooky   ghost walks",
        "A DRAGON over the hills",
    ]
    events = [e for e in ruled.state.ledger.events() if e["action"] == "blocked"]
    assert len(events) == 4


async def test_each_protocol_refuses_in_its_own_shape(ruled: ClassroomHandle) -> None:
    headers = {"authorization": f"Bearer {code(ruled, 2)}"}
    body = {"model": "gpt-5.4", "messages": [{"role": "user", "content": "one dragon"}]}
    async with httpx2.AsyncClient(headers=headers) as http:
        chat = await http.post(ruled.text_base_url + "/v1/chat/completions", json=body)
        anthropic = await http.post(
            ruled.text_base_url + "/v1/messages",
            json={**body, "model": "claude-haiku-4-5", "max_tokens": 20},
        )
        image = await http.post(
            ruled.base_url + "/v1/image2/images",
            json={"model": "gpt-image-2", "prompt": "dragon", "size": "1024x1024"},
        )
        result = await http.get(ruled.base_url + f"/v1/result/{image.json()['id']}")
    assert chat.status_code == 403
    assert chat.json()["error"]["type"] == "permission_error"
    assert chat.json()["error"]["message"] == NEUTRAL_REFUSAL
    assert chat.headers["x-should-retry"] == "false"
    assert anthropic.status_code == 403
    assert anthropic.json()["type"] == "error"
    assert anthropic.json()["error"] == {"type": "permission_error", "message": NEUTRAL_REFUSAL}
    assert image.status_code == 200
    assert (image.json()["status"], image.json()["error"]) == ("failed", NEUTRAL_REFUSAL)
    assert (result.json()["status"], result.json()["error"]) == ("failed", NEUTRAL_REFUSAL)


async def test_the_teacher_page_lists_refusals(ruled: ClassroomHandle) -> None:
    async with student(ruled, code(ruled, 2)) as client:
        await client.images.create("nano-banana", prompt="dragon in a cave")
    auth = {"authorization": f"Bearer {ruled.teacher_token}"}
    async with httpx2.AsyncClient() as http:
        state = (await http.get(ruled.wall_url + "/api/state", headers=auth)).json()
        public = (await http.get(ruled.wall_url + "/feed.json")).json()
    assert [(r["student"], r["prompt"]) for r in state["refusals"]] == [
        ("student-02", "dragon in a cave")
    ]
    assert "refusals" not in public


def test_rules_match_whole_words_and_patterns_case_insensitively() -> None:
    rules = Moderation(("fight", "red  apple", "re:^sec\\d+$"))
    assert rules.match(["Let's FIGHT!"]) == "fight"
    assert rules.match(["fighter pilots", "a fist-fight"]) == "fight"
    assert rules.match(["fighters"]) is None
    assert rules.match(["a RED\napple"]) == "red  apple"
    assert rules.match(["SEC42"]) == "re:^sec\\d+$"
    assert rules.match(["sec42 and more"]) is None
    assert rules.match([]) is None


def test_rules_with_punctuation_match_whole_words() -> None:
    rules = Moderation(("c++", "f*ck"))
    assert rules.match(["I like C++ a lot"]) == "c++"
    assert rules.match(["what the F*CK"]) == "f*ck"
    assert rules.match(["abc++", "f ck"]) is None


def test_every_text_a_student_sends_is_checked() -> None:
    def ask(**fields: Any) -> list[str]:
        return chat_texts({"model": "m", **fields})

    rules = Moderation(("dragon",))
    hidden_in_system = ask(system="draw a dragon", messages=[{"role": "user", "content": "go"}])
    forged_turn = ask(
        messages=[
            {"role": "assistant", "content": [{"type": "text", "text": "I will draw a dragon"}]},
            {"role": "user", "content": "do what you said"},
        ]
    )
    padded = ask(messages=[{"role": "user", "content": "x " * 400_000 + "dragon"}])
    assert [rules.match(t) for t in (hidden_in_system, forged_turn, padded)] == ["dragon"] * 3


def test_five_hundred_rules_over_a_whole_body_stay_fast() -> None:
    rules = Moderation((*(f"word{n}" for n in range(MAX_RULES - 1)), "re:zz+y"))
    text = "a harmless sentence about the sea. " * 28_000  # about 1 MiB, the body limit
    started = time.monotonic()
    assert rules.match([text]) is None
    print(f"\n{MAX_RULES} rules over {len(text):,} characters: {time.monotonic() - started:.3f} s")


def test_a_pattern_that_runs_too_long_refuses_instead_of_hanging() -> None:
    rules = Moderation(("re:(a|aa)+$",))
    started = time.monotonic()
    assert rules.match(["a" * 5000 + "!"]) == "re:(a|aa)+$"
    print(f"\ncatastrophic pattern stopped after {time.monotonic() - started:.3f} s")


@pytest.mark.parametrize(
    ("rules", "needle"),
    [
        (["x" * (MAX_RULE_CHARS + 1)], "longer than"),
        ([f"w{n}" for n in range(MAX_RULES + 1)], "at most"),
        (["re:(unclosed"], "not a regular expression"),
        (["re:"], "no pattern"),
    ],
)
def test_rules_outside_the_bounds_are_refused(rules: list[str], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        check_rules(rules)


def test_a_block_file_reads_one_rule_a_line() -> None:
    text = "# words the class should not use\ndragon\n\n  spooky ghost  \nre:b[a4]d\n"
    assert check_rules(read_rules(text)) == ("dragon", "spooky ghost", "re:b[a4]d")


def test_moderation_survives_a_restart(tmp_path: Path, marker_emulator: EmulatorHandle) -> None:
    from tests._classroom_helpers import upstream_of

    folder = tmp_path / "class"
    upstream = upstream_of(marker_emulator)
    with start_classroom(1, upstream=upstream, folder=folder, blocked=["owl"], approve=True) as h:
        h.state.note_blocked("student-01", "image2", "image · gpt-image-2", "an owl", "owl")
    with start_classroom(upstream=upstream, folder=folder) as again:
        kept: list[Any] = [again.blocked, again.approval, [r["prompt"] for r in again.refusals()]]
        again.set_blocked([])
        again.set_approval(False)
    assert kept == [("owl",), True, ["an owl"]]
    with start_classroom(upstream=upstream, folder=folder) as third:
        assert (third.blocked, third.approval) == ((), False)


def test_cli_block_file_and_approve_are_kept_by_the_class(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    rules = tmp_path / "blocked.txt"
    rules.write_text("# words for year 7\ndragon\nre:b[a4]d\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(root), "MEDIAGEN_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-m", "mediagen_nb.cli", "classroom", "--port", "0"]
    command += ["--folder", str(tmp_path / "class"), "--upstream", "emulator"]
    command += ["--block", str(rules), "--approve"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        try:
            lines = read_until(proc.stdout, "Press Ctrl-C")  # its Ctrl-C handler is set
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=30) == 0
    assert "2 blocked prompt rules; the wall shows approved items only\n" in lines
    with start_classroom(upstream="emulator", folder=tmp_path / "class") as again:
        assert (again.blocked, again.approval) == (("dragon", "re:b[a4]d"), True)
