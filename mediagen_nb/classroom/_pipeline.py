"""A student's create or chat as one pipeline of named steps, in one place.

authenticate (the front) -> check and reserve (one ledger transaction) -> forward -> record
-> follow -> settle. Whatever goes wrong, a ``finally`` releases what was reserved; a
streamed reply takes its reservation along and settles it when it ends.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any, Final

import httpx2
from starlette.requests import Request
from starlette.responses import Response

from mediagen_nb._serverkit.errors import JSON_KEY, dumps, error_response
from mediagen_nb.catalog import Family
from mediagen_nb.classroom._budget import (
    Claim,
    Reservation,
    chat_claim_amount,
    excerpt,
    model_name,
    prompt_tokens,
)
from mediagen_nb.classroom._chat_turns import TURN_EXCERPT, ChatTurn
from mediagen_nb.classroom._forward import (
    MeteredStream,
    UsageMeter,
    describe,
    forward_chat,
    relay,
    request_headers,
)
from mediagen_nb.classroom._gateway import Gateway, student_of
from mediagen_nb.classroom._moderation import (
    NEUTRAL_REFUSAL,
    chat_texts,
    create_texts,
    last_user_text,
)
from mediagen_nb.classroom._refusals import chat_refusal_response, refused_task_body
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.client._tasks import normalize_status
from mediagen_nb.types import ChatProtocol

ANSWER_LOST: Final = (httpx2.ReadError, httpx2.ReadTimeout, httpx2.RemoteProtocolError)
"""Failures after the whole request was sent: the service may have made the task or read
the prompt (and the teacher's key paid for it) although its answer never arrived. A request
that failed before (no connection, a write cut short) was not made."""
PROMPT_EXCERPT: Final = 200
"""Characters of a refused create's prompt the gateway keeps (the teacher sees what was
asked; a huge refused prompt costs no memory or disk)."""
log = logging.getLogger("mediagen_nb.classroom")


def prompt_of(body: Any) -> str:
    """The prompt of a create body (seedance: its text content), '' when none."""
    if not isinstance(body, dict):
        return ""
    if isinstance(body.get("prompt"), str):
        return str(body["prompt"])
    for part in body.get("content") or ():
        if isinstance(part, dict) and part.get("type") == "text":
            return str(part.get("text", ""))
    return ""


def upstream_failure(
    error: httpx2.HTTPError,
    what: str,
    protocol: ChatProtocol | None = None,
    *,
    lost: str | None = None,
) -> Response:
    """502 when the upstream did not answer: the cause is logged (a warning naming the
    request and the error) and its kind named to the student (``ReadTimeout``, ...);
    ``lost``: the request got there whole, and this sentence (``lost_answer``) says what
    counts."""
    if lost is None:
        log.warning("the upstream did not answer %s: %s", what, describe(error))
        said = f"the class's service did not answer ({type(error).__name__})"
    else:
        log.warning(
            "the upstream's answer to %s was lost, and it counts: %s", what, describe(error)
        )
        said = lost
    return error_response(502, f"{said}; try again in a moment", protocol=protocol)


def lost_answer(error: httpx2.HTTPError, asked: str, counts: str) -> str:
    """What a student is told when the service got ``asked`` whole but its answer was lost
    (``ANSWER_LOST``): the error's kind, and what of it ``counts`` against their limits."""
    kind = type(error).__name__
    return f"the class's service got this {asked} but its answer was lost ({kind}); {counts}"


def _model(body: Any) -> object:
    return body.get("model") if isinstance(body, dict) else None


# --- image and video creates ---------------------------------------------------------------


async def create_task(gw: Gateway, request: Request, fam: Family) -> Response:
    """``POST`` of an image or video create, through every step."""
    student = student_of(request)  # authenticate: done by the front
    body = request.scope.get(JSON_KEY)
    claim = Claim(student.name, fam.kind, 1, _model(body), fam.id, student.groups)
    rule = gw.state.moderation.match(create_texts(body))  # the teacher's prompt rules
    if rule is not None:
        prompt = excerpt(prompt_of(body), PROMPT_EXCERPT)
        asked = f"{fam.kind} · {model_name(claim.model)}"
        gw.state.note_blocked(student.name, fam.id, asked, prompt, rule)
        return refuse_task(gw, claim, body, NEUTRAL_REFUSAL)
    held = gw.state.reserve(claim)  # check and reserve
    if isinstance(held, str):
        return refuse_task(gw, claim, body, held)
    try:
        answer = await _send_create(gw, request, fam, claim)  # forward
        if isinstance(answer, httpx2.HTTPError):
            if isinstance(answer, ANSWER_LOST):  # it may have been made: it counts
                return _count_unanswered(gw, held, claim, body, answer)
            return upstream_failure(answer, f"{claim.student}'s {fam.id} create")
        record = _task_of(claim, body, answer)  # record
        if record is None:
            return _not_a_task(gw, claim, answer)
        _settle_and_follow(gw, held, record)  # settle, then follow
        return relay(answer)
    finally:
        gw.state.release(held)  # nothing stays held, whatever happened above


async def _send_create(
    gw: Gateway, request: Request, fam: Family, claim: Claim
) -> httpx2.Response | httpx2.HTTPError:
    try:
        response = await gw.client().post(
            gw.upstream.base_url + fam.create_path,
            content=await request.body(),
            headers=request_headers(request, gw.upstream),
        )
    except httpx2.HTTPError as error:
        gw.state.ledger.log(
            claim.student,
            "create_lost",
            fam.id,
            model=model_name(claim.model),
            error=describe(error),
            maybe_made=isinstance(error, ANSWER_LOST),
        )
        return error
    gw.upstream.note_speed(response.headers)
    gw.count("creates")
    return response


def _task_of(claim: Claim, body: Any, response: httpx2.Response) -> TaskRecord | None:
    """The task the service's answer names, or None when it names none."""
    if response.status_code >= 400:
        return None
    try:
        data = response.json()
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"]:
        return None
    status = normalize_status(data.get("status"))
    now = time.time()
    return TaskRecord(
        id=data["id"],
        student=claim.student,
        kind=claim.kind,
        family=claim.what,
        model=model_name(claim.model),
        prompt=prompt_of(body),
        status=status,
        created=now,
        updated=now,
        error=data.get("error") if status == "failed" else None,
        refused=status == "failed",
    )


def _count_unanswered(
    gw: Gateway, held: Reservation, claim: Claim, body: Any, error: httpx2.HTTPError
) -> Response:
    """The service got the whole create but its answer was lost: the task may exist and
    cost the teacher's key, so it counts against the student's limits (the budget is never
    overrun), kept as a failed task whose sentence says so; the student gets a 502."""
    counts = "the task may have been made, so it counts against your limits"
    sentence = lost_answer(error, "create", counts)
    now = time.time()
    record = TaskRecord(
        id=f"unanswered-{uuid.uuid4().hex[:16]}",
        student=claim.student,
        kind=claim.kind,
        family=claim.what,
        model=model_name(claim.model),
        prompt=prompt_of(body),
        status="failed",
        created=now,
        updated=now,
        error=sentence,
    )
    gw.state.settle_task(held, record)
    return upstream_failure(error, f"{claim.student}'s {claim.what} create", lost=sentence)


def _not_a_task(gw: Gateway, claim: Claim, response: httpx2.Response) -> Response:
    """The service answered without a task: an error passes on as it is; a success that
    names no task is a 502 in the endpoint's shape (nothing counts)."""
    status = response.status_code
    if status >= 400:
        gw.state.ledger.log(claim.student, "create_error", claim.what, status=status)
        return relay(response)
    gw.state.ledger.log(
        claim.student, "create_error", claim.what, status=status, error="the answer names no task"
    )
    log.warning("the upstream answered %s's %s create without a task", claim.student, claim.what)
    return error_response(
        502,
        "the class's service answered this create without a task; try again in a moment",
    )


def _settle_and_follow(gw: Gateway, held: Reservation, record: TaskRecord) -> None:
    gw.state.settle_task(held, record)  # the task counts from now, the reservation ends
    gw.state.ledger.log(
        record.student, "created", record.id, family=record.family, status=record.status
    )
    if gw.tracker is not None:
        gw.tracker.follow(record)


def refuse_task(gw: Gateway, claim: Claim, body: Any, sentence: str) -> Response:
    """The refused create's answer; the gateway keeps who, the model, why and an excerpt."""
    shown = model_name(claim.model) if isinstance(claim.model, str) else None
    reply = refused_task_body(shown, sentence)
    now = time.time()
    record = TaskRecord(
        id=reply["id"],
        student=claim.student,
        kind=claim.kind,
        family=claim.what,
        model=model_name(claim.model),
        prompt=excerpt(prompt_of(body), PROMPT_EXCERPT),
        status="failed",
        created=now,
        updated=now,
        error=sentence,
        result=dict(reply),
        refused=True,
    )
    gw.state.put_task(record)
    gw.state.ledger.log(claim.student, "refused", record.id, family=claim.what, reason=sentence)
    gw.count("refused")
    return Response(dumps(reply), media_type="application/json")


# --- chat completions and messages ---------------------------------------------------------


async def chat(gw: Gateway, request: Request, path: str, protocol: ChatProtocol) -> Response:
    """``POST`` of a chat completion or a message, through every step."""
    student = student_of(request)  # authenticate: done by the front
    body = request.scope.get(JSON_KEY)
    raw = await request.body()
    amount = chat_claim_amount(body, raw, gw.state.rules.chat_reserve)
    claim = Claim(student.name, "chat", amount, _model(body), path, student.groups)
    asked = last_user_text(body)
    rule = gw.state.moderation.match(chat_texts(body))  # the teacher's prompt rules
    if rule is not None:
        shown = excerpt(asked, PROMPT_EXCERPT)
        gw.state.note_blocked(student.name, path, f"chat · {model_name(claim.model)}", shown, rule)
        gw.count("refused")
        return chat_refusal_response(protocol, NEUTRAL_REFUSAL)
    held = gw.state.reserve(claim)  # check and reserve (the prompt counts on the way in)
    if isinstance(held, str):
        gw.state.ledger.log(
            student.name, "refused", path, model=model_name(claim.model), reason=held
        )
        gw.count("refused")
        return chat_refusal_response(protocol, held)
    gw.count("chats")
    meter = UsageMeter(prompt=prompt_tokens(raw))

    def settle(outcome: str) -> None:  # record and settle, when the reply has ended
        try:
            used = 0 if outcome == "error" else meter.tokens(complete=outcome == "ok")
            turn = ChatTurn(
                ts=time.time(),
                student=student.name,
                path=path,
                model=model_name(claim.model),
                prompt=excerpt(asked, TURN_EXCERPT),
                answer=meter.answer,
                tokens=used,
                outcome=outcome,
            )
            gw.state.ledger.save_chat_turn(turn)  # kept before the change the views follow
            gw.state.settle_chat(held, used, outcome)
        finally:
            gw.state.release(held)

    streamed = False
    try:
        response = await forward_chat(  # forward
            http=gw.client(),
            upstream=gw.upstream,
            request=request,
            url=gw.upstream.text_base_url + path,
            raw=raw,
            meter=meter,
            on_done=settle,
            protocol=protocol,
        )
        streamed = isinstance(response, MeteredStream)  # it settles when it ends
        return response
    except httpx2.HTTPError as error:
        lost = isinstance(error, ANSWER_LOST)
        gw.state.ledger.log(
            student.name,
            "chat_lost",
            path,
            model=model_name(claim.model),
            error=describe(error),
            maybe_made=lost,
        )
        said = None
        if lost:  # the service may have read the prompt: it counts, as a cut reply does
            settle("cut")
            said = lost_answer(error, "request", "its prompt counts against your limits")
        return upstream_failure(error, f"{student.name}'s {path}", protocol, lost=said)
    finally:
        if not streamed:
            gw.state.release(held)
