"""The budget rules under random interleavings (issue 31): a Hypothesis state machine.

Requests run through the gateway's own pipeline (``_pipeline.create_task`` and ``chat``) on
one event loop, against a fake upstream that holds each request until the machine answers
it: a task, a rejection, a page that is not JSON, an error, a lost connection, a bug, a
student who leaves, a stream read whole or cut. Tasks complete, fail or are cancelled; the
teacher pauses and resumes; the gateway restarts (as after kill -9: its ledger closed under
the running requests).

Invariants after every step: no student and not the class uses more images, videos or
tasks at once than allowed; chat tokens end at most one reply over the limit; the ledger
holds exactly one reservation per request still waiting, none once every request ended.
Derandomised (``MEDIAGEN_FUZZ_RANDOM=1`` explores new cases). Hypothesis's optimiser is
imported up front: imported lazily mid-run (under Hypothesis's raised recursion limit),
pytest's rewriting of it hits CPython 3.11's "AST constructor recursion depth mismatch".
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import optimiser  # noqa: F401
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message

from mediagen_nb._serverkit.errors import JSON_KEY
from mediagen_nb.catalog import FAMILIES
from mediagen_nb.classroom import Limits, Roster, Rules, SqliteClassLedger, Student
from mediagen_nb.classroom._gateway import STUDENT_KEY, Gateway
from mediagen_nb.classroom._pipeline import chat, create_task
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._upstream import Upstream
from mediagen_nb.client._config import Secret
from tests._support import FUZZ_RANDOM

NAMES = ("ada", "ben", "cy")
RULES = Rules(
    limits=Limits(images=1, videos=1, concurrent=2, chat_tokens=200),
    per_student={"Cy": Limits(images=2, videos=2, concurrent=1, chat_tokens=120)},
    class_limits=Limits(images=3, videos=2, concurrent=3, chat_tokens=400),
    chat_reserve=60,
)
FAMILY = {"image": FAMILIES["banana"], "video": FAMILIES["seedance"]}
MODEL = {"image": "nano-banana", "video": "seedance_1_5_pro_480p"}
CREATE_ANSWERS = ("task", "task", "task", "task", "rejected", "page", "error", "lost", "bug")
CHAT_ANSWERS = ("ok", "ok", "stream", "stream", "cut", "error", "lost", "bug")
"""How the fake service answers (successes weighted up, so that limits are reached)."""
SPIN = 200


@dataclass
class Waiting:
    """A student request held at the fake upstream."""

    kind: str
    student: str
    task: asyncio.Task[Response]
    gate: asyncio.Future[httpx2.Response]
    raw: bytes
    most: int
    """The chat's max_tokens (or the class's chat_reserve)."""


def scope_of(student: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(b"content-type", b"application/json")],
        "query_string": b"",
        "asgi": {"spec_version": "2.4"},
        STUDENT_KEY: Student(student, f"mgc-{student}"),
        JSON_KEY: body,
    }


def request_of(scope: dict[str, Any], raw: bytes) -> Request:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": raw, "more_body": False}

    return Request(scope, receive)


class BudgetMachine(RuleBasedStateMachine):
    """See the module docstring."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="budget-machine-"))
        self.loop = asyncio.new_event_loop()
        self.gates: list[asyncio.Future[httpx2.Response]] = []
        self.waiting: list[Waiting] = []
        self.running: list[str] = []
        self.ids = itertools.count(1)
        self.http = httpx2.AsyncClient(transport=httpx2.MockTransport(self._upstream))
        self._open()

    # --- the gateway and its fake upstream ------------------------------------------------

    def _open(self) -> None:
        ledger = SqliteClassLedger(self.folder)
        snap = ledger.load()
        roster = Roster([Student(n, f"mgc-{n}") for n in NAMES])
        self.state = ClassState(ledger, roster, RULES)  # a restart resumes the class
        self.state.load(snap.tasks, snap.chat_tokens)
        upstream = Upstream("http://up.test/api", "http://up.test/gateway", Secret("sk-k"))
        self.gw = Gateway(self.state, upstream, self.folder / "media", http=self.http)

    async def _upstream(self, request: httpx2.Request) -> httpx2.Response:
        gate: asyncio.Future[httpx2.Response] = self.loop.create_future()
        self.gates.append(gate)
        return await gate

    def _spin(self, done: Any) -> None:
        for _ in range(SPIN):
            if done():
                return
            self.loop.run_until_complete(asyncio.sleep(0))
        raise AssertionError("the gateway did not get on")

    def _start(self, kind: str, student: str, coro: Any, raw: bytes, most: int = 0) -> None:
        before = len(self.gates)
        task = self.loop.create_task(coro)
        self._spin(lambda: task.done() or len(self.gates) > before)
        if task.done():
            answer = task.result()
            assert answer.status_code in (200, 403)  # refused in the endpoint's shape
            return
        self.waiting.append(Waiting(kind, student, task, self.gates[-1], raw, most))

    def _finish(self, job: Waiting) -> Response | None:
        self.waiting.remove(job)
        self._spin(job.task.done)
        if job.task.cancelled():
            return None
        error = job.task.exception()
        if error is not None:
            assert isinstance(error, RuntimeError)  # the injected bug, not another
            return None
        return job.task.result()

    # --- creates and tasks ----------------------------------------------------------------

    @rule(student=st.sampled_from(NAMES), kind=st.sampled_from(("image", "video")))
    def begin_create(self, student: str, kind: str) -> None:
        body = {"model": MODEL[kind], "prompt": f"a picture {next(self.ids)}"}
        raw = json.dumps(body).encode()
        fam = FAMILY[kind]
        request = request_of(scope_of(student, "/api" + fam.create_path, body), raw)
        self._start(kind, student, create_task(self.gw, request, fam), raw)

    @precondition(lambda self: any(w.kind != "chat" for w in self.waiting))
    @rule(data=st.data(), answer=st.sampled_from(CREATE_ANSWERS))
    def answer_create(self, data: st.DataObject, answer: str) -> None:
        job = data.draw(st.sampled_from([w for w in self.waiting if w.kind != "chat"]))
        task_id = f"task-{next(self.ids)}"
        self._answer(job, answer, task_id)
        response = self._finish(job)
        if answer == "task":
            assert response is not None
            assert response.status_code == 200
            self.running.append(task_id)

    def _answer(self, job: Waiting, answer: str, task_id: str) -> None:
        gate = job.gate
        if answer == "task":
            gate.set_result(httpx2.Response(200, json={"id": task_id, "status": "queued"}))
        elif answer == "rejected":
            body = {"id": task_id, "status": "failed", "error": "not allowed"}
            gate.set_result(httpx2.Response(200, json=body))
        elif answer == "page":
            gate.set_result(httpx2.Response(200, text="<html>busy</html>"))
        elif answer == "error":
            gate.set_result(httpx2.Response(500, json={"error": {"message": "oops"}}))
        elif answer == "lost":
            gate.set_exception(httpx2.ConnectError("the service went away"))
        elif answer == "bug":
            gate.set_exception(RuntimeError("a bug in the gateway"))
        else:  # the student leaves: the request is cancelled where it waits
            job.task.cancel()

    @precondition(lambda self: bool(self.waiting))
    @rule(data=st.data())
    def student_leaves(self, data: st.DataObject) -> None:
        """The student's connection closes while the request waits upstream."""
        job = data.draw(st.sampled_from(self.waiting))
        self._answer(job, "leaves", "")
        assert self._finish(job) is None

    @precondition(lambda self: bool(self.running))
    @rule(data=st.data(), status=st.sampled_from(("completed", "failed", "cancelled")))
    def end_task(self, data: st.DataObject, status: str) -> None:
        task_id = data.draw(st.sampled_from(self.running))
        self.running.remove(task_id)
        record = self.state.tasks[task_id]
        record.status = status
        self.state.put_task(record)

    # --- chats ------------------------------------------------------------------------------

    @rule(
        student=st.sampled_from(NAMES),
        most=st.one_of(st.none(), st.integers(1, 150)),
        stream=st.booleans(),
    )
    def begin_chat(self, student: str, most: int | None, stream: bool) -> None:
        body: dict[str, Any] = {
            "model": "gpt-5.4",
            "messages": [{"role": "user", "content": f"question {next(self.ids)}"}],
            "stream": stream,
        }
        if most is not None:
            body["max_tokens"] = most
        raw = json.dumps(body).encode()
        request = request_of(scope_of(student, "/gateway/v1/chat/completions", body), raw)
        coro = chat(self.gw, request, "/v1/chat/completions", "chat_completions")
        self._start("chat", student, coro, raw, most or RULES.chat_reserve)

    @precondition(lambda self: any(w.kind == "chat" for w in self.waiting))
    @rule(data=st.data(), answer=st.sampled_from(CHAT_ANSWERS), share=st.floats(0, 1))
    def answer_chat(self, data: st.DataObject, answer: str, share: float) -> None:
        job = data.draw(st.sampled_from([w for w in self.waiting if w.kind == "chat"]))
        written = int(job.most * share)  # a service keeps within max_tokens
        if answer == "ok":
            usage = {"prompt_tokens": len(job.raw) // 5, "completion_tokens": written}
            reply = {"choices": [{"message": {"content": "x" * 4 * written}}], "usage": usage}
            job.gate.set_result(httpx2.Response(200, json=reply))
        elif answer in ("stream", "cut"):
            chunks = b"".join(
                b"data: " + json.dumps({"choices": [{"delta": {"content": "abcd"}}]}).encode()
                for _ in range(written)
            )
            job.gate.set_result(
                httpx2.Response(200, content=chunks, headers={"content-type": "text/event-stream"})
            )
        else:
            self._answer(job, answer, "")
        response = self._finish(job)
        if answer in ("stream", "cut") and response is not None:
            self._read(response, cut=answer == "cut")

    def _read(self, response: Response, *, cut: bool) -> None:
        """Read a streamed reply to its end, or leave after its first part."""
        sent: list[Message] = []

        async def send(message: Message) -> None:
            if cut and message["type"] == "http.response.body":
                raise OSError("the student left")
            sent.append(message)

        async def receive() -> Message:
            return {"type": "http.disconnect"}

        async def run() -> None:
            with contextlib.suppress(Exception):
                await response({"type": "http", "asgi": {"spec_version": "2.4"}}, receive, send)

        self.loop.run_until_complete(run())
        assert sent[0]["type"] == "http.response.start"

    @rule(paused=st.booleans())
    def teacher_pauses(self, paused: bool) -> None:
        """While paused every new request is refused; those running go on."""
        self.state.set_paused(paused)

    # --- restarts -------------------------------------------------------------------------

    @rule()
    def restart(self) -> None:
        """kill -9: the ledger goes first; requests still waiting die with the process."""
        self.state.ledger.close()
        for job in list(self.waiting):
            job.task.cancel()
            self.waiting.remove(job)
            self._spin(job.task.done)
            if not job.task.cancelled():  # its release met the closed ledger, as in a crash
                assert isinstance(job.task.exception(), sqlite3.ProgrammingError)
        self._open()

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def within_every_limit(self) -> None:
        ledger = self.state.ledger
        held = ledger.held()
        replies = [e["tokens"] for e in ledger.events(100_000) if e["action"] == "chat_end"]
        one_reply = max(replies, default=0)
        for who in (*NAMES, None):
            limits = RULES.class_limits if who is None else RULES.limits_for(who)
            used = ledger.usage(who)
            assert used.images <= (limits.images or 0)
            assert used.videos <= (limits.videos or 0)
            assert used.in_flight <= (limits.concurrent or 0)
            holding = sum(
                r.claim.amount
                for r in held
                if r.claim.kind == "chat" and (who is None or r.student == who)
            )
            assert used.chat_tokens - holding <= (limits.chat_tokens or 0) + one_reply

    @invariant()
    def one_reservation_per_waiting_request(self) -> None:
        assert len(self.state.ledger.held()) == len(self.waiting)
        assert len(self.state.open_reservations()) == len(self.waiting)

    def teardown(self) -> None:
        try:
            for job in list(self.waiting):
                self._answer(job, "leaves", "")
                self._finish(job)
            assert self.state.ledger.held() == []
            assert self.state.open_reservations() == []
        finally:
            self.state.ledger.close()
            self.loop.run_until_complete(self.http.aclose())
            self.loop.close()
            shutil.rmtree(self.folder, ignore_errors=True)


BudgetMachine.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=30,
    deadline=None,
    derandomize=not FUZZ_RANDOM,
    suppress_health_check=[HealthCheck.too_slow],
)
test_budget_rules = BudgetMachine.TestCase
