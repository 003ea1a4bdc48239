"""Fuzzing what a hostile service or a hostile history file controls, on the client's side.

Hypothesis drives four inputs through the real code paths (derandomised, ``EXAMPLES`` each
as in ``test_fuzz_hostile``): malformed poll answers (deep nesting, fields of the wrong type),
the emulator speed and ``Retry-After`` headers, API keys with characters a header cannot
hold, and the ``local_file`` of an imported history. Properties: every error is a
``MediagenError``; ``wait()`` ends within its documented deadline (fake clock, no real
waiting); no key appears in ``traceback.format_exception`` of any error; and no file outside
the history's media folder is ever opened (an audit hook sees every ``open``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx2
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.client import AsyncClient, ConfigurationError, MediagenError, TaskTimeoutError
from mediagen_nb.client._pace import MIN_POLL_INTERVAL_S
from mediagen_nb.history import Ledger, import_history
from mediagen_nb.history._media import media_path
from mediagen_nb.widgets import HistoryPanel
from mediagen_nb.widgets._session import Session
from tests._loopback import Answer, Loopback, chunks
from tests._support import FUZZ_RANDOM, KEY, FakeClock
from tests.client_fakes import BASE, TEXT, png_bytes

EXAMPLES = int(os.environ.get("MEDIAGEN_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # each example is bounded by what it sends; the machine may be busy
    derandomize=not FUZZ_RANDOM,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SPEED = "x-mediagen-emulator-speed"
TRANSPORT_SLACK_S = 3 * 60.0
"""The documented excess of a wait: one poll's transport retries (3 of at most 60 s)."""


def fake_client(
    handler: Callable[[httpx2.Request], httpx2.Response], clock: FakeClock, **kw: Any
) -> AsyncClient:
    return AsyncClient(
        KEY,
        BASE,
        TEXT,
        httpx2.MockTransport(handler),
        sleep=clock.sleep,
        clock=clock,
        **{"recorder": None, **kw},
    )


# -- malformed answers -------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=10,
)
FIELDS = ["status", "id", "created", "image_url", "error", "model", "object", "progress"]
MALFORMED = st.one_of(
    st.integers(2_000, 200_000).map(lambda n: "[" * n + "]" * n),  # up to 400 KB of brackets
    st.integers(2_000, 100_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(2_000, 100_000).map(lambda n: '{"status": ' + "[" * n),
    st.builds(
        lambda field, value: json.dumps({"id": "t1", "status": "processing", field: value}),
        st.sampled_from(FIELDS),
        JSON_VALUES,
    ),
    JSON_VALUES.map(json.dumps),
)


@FUZZ
@given(MALFORMED)
@example("[" * 200_000 + "]" * 200_000)  # the review's 400 KB of brackets
@example(json.dumps({"id": "t1", "status": {"state": "done"}}))  # a status that is an object
def test_malformed_answers_raise_only_mediagen_errors(answer: str) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST":
            return httpx2.Response(200, json={"id": "t1", "status": "queued", "created": 1})
        return httpx2.Response(200, text=answer, headers={"content-type": "application/json"})

    async def main() -> list[BaseException | None]:
        outcomes: list[BaseException | None] = []
        clock = FakeClock()
        async with fake_client(handler, clock) as client:
            task = await client.images.create("nano-banana", prompt="a square")
            for action in (lambda: client.tasks.get("t1"), lambda: task.wait(timeout=30)):
                try:
                    await action()
                except Exception as exc:
                    outcomes.append(exc)
                else:
                    outcomes.append(None)
        return outcomes

    for outcome in asyncio.run(main()):
        assert outcome is None or isinstance(outcome, MediagenError), repr(outcome)[:300]


# -- the speed and Retry-After headers ---------------------------------------------------------

SPEEDS = st.one_of(
    st.sampled_from(["1e-9", "1e-300", "0", "-1", "nan", "inf", "1e9", "1e308", "x", "", "0.5"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
POLL_ANSWERS = st.lists(
    st.one_of(
        st.just(None),  # "processing"
        st.sampled_from(["1e9", "86400", "-5", "nan", "inf", "Fri, 31 Dec 9999 23:59:59 GMT"]),
        st.floats(0, 1e6).map(repr),
    ),
    min_size=1,
    max_size=4,
)
IMAGE_MODELS = ["nano-banana", "gpt-image-2"]
MAX_POLLS = 20_000


class Records(logging.Handler):
    """Keeps the records of a logger while installed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def records_of(name: str) -> Iterator[Records]:
    handler = Records()
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@FUZZ
@given(
    SPEEDS,
    POLL_ANSWERS,
    st.one_of(st.none(), st.floats(0.5, 10.0)),
    st.sampled_from(IMAGE_MODELS),
)
@example("1e-9", [None], None, "nano-banana")  # the review's decades-long sleep
@example("inf", ["-5"], 1.0, "nano-banana")  # Retry-After 0 after every poll
def test_wait_ends_within_its_deadline_whatever_the_headers_say(
    speed: str, answers: list[str | None], timeout: float | None, model: str
) -> None:
    polls = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal polls
        headers = {SPEED: speed}
        if request.method == "POST":
            body = {"id": "t1", "status": "queued", "created": 1}
            return httpx2.Response(200, json=body, headers=headers)
        retry_after = answers[polls % len(answers)]
        polls += 1
        if polls > MAX_POLLS:  # a client that would poll forever fails here, not hangs
            raise AssertionError(f"still polling after {MAX_POLLS} polls")
        if retry_after is not None:
            headers["retry-after"] = retry_after
            error = {"error": {"type": "rate_limit_error", "message": "slow down"}}
            return httpx2.Response(429, json=error, headers=headers)
        return httpx2.Response(200, json={"id": "t1", "status": "processing"}, headers=headers)

    async def main() -> float:
        clock = FakeClock()
        async with fake_client(handler, clock) as client:
            task = await client.images.create(model, prompt="a square")
            start = clock()
            with suppress(TaskTimeoutError):
                await task.wait(timeout=timeout)
            return clock() - start

    with records_of("mediagen_nb.client") as seen:
        elapsed = asyncio.run(main())
    _low, high = FAMILIES["banana" if model.startswith("nano") else "image2"].eta(model)
    documented = max(600.0, 3 * high) if timeout is None else timeout
    assert elapsed <= documented + TRANSPORT_SLACK_S + 1e-6
    # at most 100 polls a second (a "Retry-After: 0" included), each retried at most 3 times
    assert polls <= 4 * (documented / MIN_POLL_INTERVAL_S + 2)
    warnings = [r for r in seen.records if SPEED in r.getMessage()]
    assert len(warnings) == 1  # told once: a service outside demo mode sent the header
    assert warnings[0].levelno == logging.WARNING


# -- keys with characters a header cannot hold -------------------------------------------------

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
SAFE = st.text(alphabet=ALNUM, min_size=8, max_size=24)
BAD_CHARS = st.one_of(
    st.just(""),  # a header-safe key: it must work
    st.sampled_from(["\n", "\r\n", "\u200b", " ", "\t", "\x00", "\x7f", "é", "\u2028", "\ufeff"]),
    st.characters(exclude_categories=["Cs"]).filter(lambda c: not "!" <= c <= "~"),
)


def _route(method: str, path: str) -> Answer:
    body = json.dumps({"id": "t1", "status": "processing", "created": 1}).encode()
    return Answer(200, {"content-type": "application/json"}, chunks(body))


@FUZZ
@given(SAFE, BAD_CHARS, SAFE, st.booleans())
@example("sk-head-0000", "\n", "tail-1111", False)  # the review's newline
@example("sk-head-0000", "\u200b", "tail-1111", False)  # and zero-width space
def test_a_key_never_appears_in_any_traceback(
    head: str, bad: str, tail: str, from_env: bool
) -> None:
    key = f"{head}{bad}{tail}"
    assume(not (from_env and "\x00" in key))  # an environment variable cannot hold NUL

    async def main() -> BaseException | None:
        async with Loopback(_route) as server:
            try:
                if from_env:
                    os.environ["MEDIAGEN_API_KEY"] = key
                arg = None if from_env else key
                api, text = f"{server.url}/api", f"{server.url}/text"
                async with AsyncClient(arg, api, text, recorder=None, max_retries=0) as client:
                    await client.tasks.get("t1")
            except Exception as exc:
                return exc
            finally:
                os.environ.pop("MEDIAGEN_API_KEY", None)
        return None

    error = asyncio.run(main())
    if all("!" <= c <= "~" for c in key):
        assert error is None  # a header-safe key works
        return
    assert error is not None
    shown = "".join(traceback.format_exception(error))
    for piece in (head, tail, repr(key)[1:-1], key):
        assert piece not in shown
    assert isinstance(error, ConfigurationError)  # refused when given, before any request


# -- the media paths of an imported history ----------------------------------------------------

_OPENED: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], str | bytes | Path):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)

LOCAL_FILES = st.sampled_from(
    ["secret", "relative", "dotdot", "symlink", "database", "inside", "number", "nul", "tilde"]
)
TASK_KEY = "task_h1"


def _local_file(kind: str, root: Path, media: Path, secret: Path) -> tuple[Any, bool]:
    """A ``local_file`` value of ``kind`` and whether it lies inside the media folder."""
    inside = media / "ab" / "kept.png"
    link = media / "cd" / "link.png"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(secret)
    values: dict[str, tuple[Any, bool]] = {
        "secret": (str(secret), False),
        "relative": (os.path.relpath(secret), False),
        "dotdot": (str(media / ".." / ".." / secret.name), False),
        "symlink": (str(link), False),
        "database": (str(root / "home" / "history.sqlite3"), False),
        "inside": (str(inside), True),
        "number": (12345, False),
        "nul": ("\0/etc/passwd", False),
        "tilde": ("~/" + secret.name, False),
    }
    return values[kind]


def _export(path: Path, local_files: list[Any]) -> None:
    common = {"kind": "task", "key": TASK_KEY, "family": "banana", "model": "nano-banana"}
    request = {"model": "nano-banana", "prompt": "a square"}
    events = [
        {
            **common,
            "ts": 1.0,
            "action": "created",
            "data": {"status": "queued", "request": request},
        },
        {
            **common,
            "ts": 2.0,
            "action": "completed",
            "data": {"status": "completed", "url": "http://cdn.test/m.png"},
        },
    ]
    for index, local_file in enumerate(local_files):
        data = {"local_file": local_file}
        events.append({**common, "ts": 3.0 + index, "action": "stored", "data": data})
    document = {"format": "mediagen_nb-history", "version": 1, "exported": 1.0, "events": events}
    path.write_text(json.dumps(document), encoding="utf-8")


def _service(media: bytes) -> Callable[[httpx2.Request], httpx2.Response]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.host == "cdn.test":
            return httpx2.Response(200, content=media)
        body = {"id": TASK_KEY, "status": "completed", "image_url": "http://cdn.test/m.png"}
        return httpx2.Response(200, json=body)

    return handler


@FUZZ
@given(st.lists(LOCAL_FILES, min_size=1, max_size=4), st.booleans())
@example(["secret"], False)  # the review's absolute path
@example(["symlink", "inside"], True)
def test_no_file_outside_the_media_folder_is_ever_read(kinds: list[str], plant: bool) -> None:
    global _OPENED  # noqa: PLW0603 - the audit hook's switch
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        home = root / "home"
        media = home / "media"
        secret = root / "secret.png"
        secret.write_bytes(png_bytes((9, 9)))
        values = [_local_file(kind, root, media, secret) for kind in kinds]
        (media / "ab" / "kept.png").parent.mkdir(parents=True, exist_ok=True)
        (media / "ab" / "kept.png").write_bytes(png_bytes((7, 7)))
        if plant:  # a symlink where the key's own cached file would be
            planted = media_path(media, TASK_KEY, ".png")
            planted.parent.mkdir(parents=True, exist_ok=True)
            planted.symlink_to(secret)
        saved = root / "export.json"
        _export(saved, [value for value, _inside in values])
        remote = png_bytes((5, 5))
        _OPENED = []
        try:
            count = import_history(saved, home=home)
            panel = HistoryPanel(session=Session(mode_text="test"), home=home)
            ledger = Ledger(home)
            try:
                cached = ledger.cached_media(TASK_KEY)
                read = asyncio.run(_read_bytes(ledger, remote))
            finally:
                ledger.close()
            opened = list(_OPENED)
        finally:
            _OPENED = None
        outside = [
            p for p in opened if _under(p, root) and not _under(p, media) and p != str(saved)
        ]
        assert outside == []
        assert not any(Path(p).resolve() == secret.resolve() for p in opened if "\0" not in p)
        assert count.dropped == sum(1 for _value, inside in values if not inside)
        assert cached is None or _under(str(Path(cached).resolve()), media.resolve())
        assert read != secret.read_bytes()
        assert panel.errors == []


def _under(path: str, folder: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError):
        return False


async def _read_bytes(ledger: Ledger, remote: bytes) -> bytes:
    clock = FakeClock()
    async with fake_client(_service(remote), clock, recorder=ledger) as client:
        task = client.tasks.attach(TASK_KEY, "banana", "nano-banana")
        await task.refresh()
        return await task.read_bytes()
