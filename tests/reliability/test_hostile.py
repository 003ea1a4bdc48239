"""Row 7: hostile input to the emulator gets clear errors, and the server keeps serving.

A real uvicorn emulator on loopback, started with the working directory and ``HOME`` in a
temporary folder, receives malformed and non-UTF-8 JSON, NaN, lone surrogates, raw control
characters, bodies nested 100,000 deep, 2 MiB bodies (with and without ``Content-Length``),
wrong content types, hostile auth headers, unknown methods, control and unicode characters
and path traversal in ids (through httpx2, and literally through raw sockets, which httpx2
would normalise), ``file://`` URLs, and a hostile ``Host`` header. Pass when every answer is a
4xx JSON error ``{"error": {"type", "message"}}`` (asset endpoints: their failure envelope,
as the spec says), no 5xx and no logged emulator bug; the server answers a probe after every
case and still runs a whole task; nothing appears outside its folders (it has none: it writes
nothing), and no answer carries a local file's content.

Requests that are not HTTP at all (a garbage request line, a non-numeric ``Content-Length``,
broken chunked encoding) never reach the app: uvicorn answers them itself (pinned below).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mediagen_nb.emulator import EmulatorHandle, start_emulator
from tests._support import KEY
from tests.reliability._reliability import ROOT, report

AUTH = {"Authorization": f"Bearer {KEY}"}
JSON_CT = {**AUTH, "Content-Type": "application/json"}
PROBE = "probe-7c1d9e"
"""Appears in every file-like name the payloads mention; searched for on disk afterwards."""
CREATE = "/api/v1/banana/images"
PASSWD_LINE = b"root:x:0:0"


@dataclass
class Case:
    """One hostile request and what a correct answer looks like."""

    name: str
    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes | None = None
    statuses: tuple[int, ...] = (400,)
    envelope: bool = False
    """Asset endpoints answer 200 with a failure envelope (``code`` other than "0")."""


def _huge_stream(size: int) -> AsyncIterator[bytes]:
    async def chunks() -> AsyncIterator[bytes]:
        sent = 0
        yield b'{"model": "nano-banana", "prompt": "'
        while sent < size:
            yield b"a" * 65536
            sent += 65536
        yield b'"}'

    return chunks()


def _cases() -> list[Case]:
    traversal = f"..%2F..%2F..%2Ftmp%2F{PROBE}"
    return [
        Case("malformed json", "POST", CREATE, JSON_CT, b'{"model": "nano-banana", "prompt": '),
        Case("NaN", "POST", CREATE, JSON_CT, b'{"model": "nano-banana", "prompt": NaN}'),
        Case(
            "not utf-8", "POST", CREATE, JSON_CT, b'{"model": "nano-banana", "prompt": "\xff\xfe"}'
        ),
        Case("lone surrogate", "POST", CREATE, JSON_CT, b'{"model": "x", "prompt": "\\ud800"}'),
        Case("raw control char", "POST", CREATE, JSON_CT, b'{"model": "x", "prompt": "a\x01b"}'),
        Case("empty body", "POST", CREATE, JSON_CT, b""),
        Case("nested 100k", "POST", CREATE, JSON_CT, b"[" * 100_000 + b"]" * 100_000),
        Case("2 MiB body", "POST", CREATE, JSON_CT, b'{"p": "' + b"a" * (2 << 20) + b'"}', (413,)),
        Case("text/plain", "POST", CREATE, {**AUTH, "Content-Type": "text/plain"}, b"{}", (415,)),
        Case(
            "multipart",
            "POST",
            CREATE,
            {**AUTH, "Content-Type": "multipart/form-data; boundary=x"},
            b"--x\r\n\r\n{}\r\n--x--",
            (415,),
        ),
        Case("no content type", "POST", CREATE, AUTH, b'{"model": "nano-banana"}', (415,)),
        Case("chat malformed", "POST", "/gateway/v1/chat/completions", JSON_CT, b'{"model":'),
        Case("chat wrong shape", "POST", "/gateway/v1/messages", JSON_CT, b'{"messages": 7}'),
        Case("asset malformed", "POST", "/api/svcVideo2/asset/upload", JSON_CT, b"{'a': 1}"),
        Case("path NUL", "GET", "/api/v1/result/%00abc", AUTH),
        Case("path newline", "GET", "/api/v1/result/abc%0d%0aX-Injected:%201", AUTH),
        Case("traversal result", "GET", f"/api/v1/result/{traversal}", AUTH, statuses=(404,)),
        Case("traversal media", "GET", f"/api/media/{traversal}.png", statuses=(404,)),
        Case(
            "unicode id",
            "GET",
            "/api/v1/result/%E2%80%AEgpj.exe%F0%9F%A6%8A",
            AUTH,
            statuses=(404,),
        ),
        Case("10k id", "GET", "/api/v1/result/" + "a" * 10_000, AUTH, statuses=(404,)),
        Case(
            "asset traversal get",
            "GET",
            f"/api/svcVideo2/asset/{traversal}",
            AUTH,
            envelope=True,
        ),
        Case(
            "asset traversal delete",
            "DELETE",
            f"/api/svcVideo2/asset/{traversal}",
            AUTH,
            envelope=True,
        ),
        Case(
            "sd2 status traversal",
            "POST",
            "/api/asset/sd2Manxue/assetStatus",
            JSON_CT,
            json.dumps({"assetIds": [f"../../tmp/{PROBE}", f"..\\..\\{PROBE}", "\u0000"]}).encode(),
            envelope=True,
        ),
        Case(
            "long bearer",
            "GET",
            "/api/v1/result/x",
            {"Authorization": "Bearer " + "k" * 9000},
            statuses=(401,),
        ),
        Case(
            "basic auth",
            "GET",
            "/api/v1/result/x",
            {"Authorization": "Basic a2V5OmtleQ=="},
            statuses=(401,),
        ),
        Case("unknown method", "BREW", CREATE, AUTH, statuses=(405,)),
        Case("unknown path", "GET", f"/api/../{PROBE}", AUTH, statuses=(404,)),
    ]


@dataclass
class Served:
    handle: EmulatorHandle
    folders: list[Path]


def _snapshot(folders: list[Path]) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for folder in folders:
        for path in folder.rglob("*"):
            stat = path.lstat()
            found[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return found


def _probe_files() -> list[str]:
    """Files named with PROBE where a traversal could have put them."""
    places = [Path("/tmp"), ROOT, ROOT / "mediagen_nb", Path.cwd(), Path.home()]
    return [str(p) for place in places if place.is_dir() for p in place.glob(f"*{PROBE}*")]


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    cwd, home = tmp_path / "cwd", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(home))
    handle = start_emulator(speed=100.0, api_key=KEY, seed=13)
    yield Served(handle, [tmp_path])
    handle.stop()


def _problems(case: Case, response: httpx2.Response) -> list[str]:
    """What is wrong with the answer to ``case`` (empty: a clear error)."""
    problems: list[str] = []
    if PASSWD_LINE in response.content:
        problems.append("answer carries /etc/passwd")
    try:
        body: Any = response.json()
    except ValueError:
        return [*problems, f"not JSON: {response.status_code} {response.text[:80]!r}"]
    if case.envelope and response.status_code == 200:
        if not _failure_envelope(body):
            problems.append(f"envelope is not a clear failure: {body!r}"[:200])
        return problems
    if response.status_code not in case.statuses and not (
        case.envelope and 400 <= response.status_code < 500
    ):
        problems.append(f"status {response.status_code}, wanted {case.statuses}")
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or not error.get("type") or not error.get("message"):
        problems.append(f"no error.type/message: {body!r}"[:200])
    elif len(str(error["message"])) > 2000:
        problems.append("error message longer than 2000 characters")
    return problems


def _failure_envelope(body: Any) -> bool:
    """A non-"0" code with a message, or (sd2 status) every id listed in ``failedItems``."""
    if not isinstance(body, dict):
        return False
    if body.get("code") not in ("0", 0):
        return bool(body.get("msg"))
    data = body.get("data")
    return isinstance(data, dict) and not data.get("items") and bool(data.get("failedItems"))


async def _alive(http: httpx2.AsyncClient) -> bool:
    response = await http.get("/api/v1/result/alive-probe", headers=AUTH)
    return response.status_code == 404 and response.json()["error"]["type"] == "not_found_error"


def _raw(port: int, data: bytes) -> tuple[int, bytes, bytes]:
    """Send bytes as they are; return (status, head, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), head, body


RAW_APP_CASES = [
    (f"GET /api/v1/result/../../../tmp/{PROBE} HTTP/1.1", True, 404),
    (f"GET /api/media/../../../../etc/passwd#{PROBE} HTTP/1.1", False, 404),
    ("GET /api/svcVideo2/asset/../../../../etc/passwd HTTP/1.1", True, 404),
]


async def test_hostile_requests_get_clear_errors(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="mediagen_nb.emulator")
    before = _snapshot(served.folders)
    handle = served.handle
    root = f"http://127.0.0.1:{handle.port}"
    failures: list[str] = []
    statuses: list[int] = []
    async with httpx2.AsyncClient(base_url=root, timeout=30) as http:
        for case in _cases():
            response = await http.request(
                case.method, case.path, headers=case.headers, content=case.content
            )
            statuses.append(response.status_code)
            failures += [f"{case.name}: {p}" for p in _problems(case, response)]
            if not await _alive(http):
                failures.append(f"{case.name}: server stopped answering")
        # a 2 MiB body streamed without Content-Length
        streamed = await http.post(CREATE, headers=JSON_CT, content=_huge_stream(2 << 20))
        statuses.append(streamed.status_code)
        if streamed.status_code != 413 or "error" not in streamed.json():
            failures.append(f"chunked 2 MiB: {streamed.status_code} {streamed.text[:80]}")
        for line, auth, wanted in RAW_APP_CASES:
            request = f"{line}\r\nHost: x\r\nConnection: close\r\n".encode("latin-1")
            request += f"Authorization: Bearer {KEY}\r\n".encode() if auth else b""
            status, head, body = await asyncio.to_thread(_raw, handle.port, request + b"\r\n")
            statuses.append(status)
            if status != wanted or b"application/json" not in head or b'"error"' not in body:
                failures.append(f"raw {line!r}: {status} {body[:80]!r}")
        weird = await _weird_but_valid(http)
        failures += weird
        alive = await _alive(http)
    after = _snapshot(served.folders)
    bugs = [r for r in caplog.records if r.name.startswith("mediagen_nb.emulator")]
    probes = _probe_files()
    report(
        "row 7 hostile input",
        requests=len(statuses),
        status_counts={s: statuses.count(s) for s in sorted(set(statuses))},
        server_errors=sum(s >= 500 for s in statuses),
        emulator_bug_logs=len(bugs),
        new_files=len(set(after) - set(before)),
        probe_files=len(probes),
        failures=len(failures),
    )
    assert not failures, failures
    assert all(400 <= s < 500 or s == 200 for s in statuses)
    assert alive
    assert not bugs, [r.getMessage() for r in bugs]
    assert after == before, sorted(set(after) ^ set(before))
    assert not probes, probes
    assert os.listdir(Path.cwd()) == []


async def _weird_but_valid(http: httpx2.AsyncClient) -> list[str]:
    """A prompt full of controls, bidi marks and emoji, a file:// asset URL and a hostile
    Host header are accepted, served and never followed; returns what went wrong."""
    failures: list[str] = []
    prompt = "\u0000\u0007\u202e\U0001f98a \ufeff<script>alert(1)</script> ../../etc/passwd"
    created = await http.post(
        CREATE,
        headers={**JSON_CT, "Host": f"evil.example/../{PROBE}"},
        json={"model": "nano-banana", "prompt": prompt},
    )
    task = created.json()
    if created.status_code != 200 or task.get("status") != "processing":
        return [f"weird prompt refused: {created.status_code} {created.text[:120]}"]
    for _ in range(200):
        await asyncio.sleep(0.05)
        polled = await http.get(f"/api/v1/result/{task['id']}", headers=AUTH)
        result = polled.json()
        if result.get("status") == "completed":
            break
    else:
        return ["weird prompt task never completed"]
    url = str(result["image_url"])
    if "evil.example" in url or PROBE in url:
        failures.append(f"hostile Host header reached the result URL: {url}")
    media = await http.get(url)
    if media.status_code != 200 or not media.content.startswith(b"\x89PNG"):
        failures.append(f"weird prompt media: {media.status_code}")
    upload = await http.post(
        "/api/svcVideo2/asset/upload",
        headers=JSON_CT,
        json={"assetType": "Image", "url": f"file:///etc/passwd?{PROBE}"},
    )
    if PASSWD_LINE in upload.content or upload.status_code != 200:
        failures.append(f"file:// upload: {upload.status_code} {upload.text[:120]}")
    return failures


PROTOCOL_CASES = [
    b"GARBAGE\r\n\r\n",
    b"GET /api/v1/result/\x1b[31mred HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    b"POST /api/v1/banana/images HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: abc\r\nConnection: close\r\n\r\n{}",
    b"POST /api/v1/banana/images HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n",
]


async def test_invalid_http_gets_the_json_error_shape(served: Served) -> None:
    answers = [await asyncio.to_thread(_raw, served.handle.port, data) for data in PROTOCOL_CASES]
    async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{served.handle.port}") as http:
        assert await _alive(http)
    assert [status for status, _head, _body in answers] == [400] * len(PROTOCOL_CASES)
    for _status, head, body in answers:
        assert b"application/json" in head
        assert json.loads(body)["error"]["type"] == "invalid_request_error"
