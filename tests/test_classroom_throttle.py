"""Per-address limits at the gateway's door: wrong codes and class-code enrolments (issue 31,
rows 7 and 16). Two client addresses come from loopback: 127.0.0.1 and 127.0.0.2."""

from __future__ import annotations

import httpx2

from mediagen_nb.classroom import ClassroomHandle

WINDOW_LIMIT_WRONG = 20
"""At most this many wrong codes per minute from one address are answered 401."""
WINDOW_LIMIT_NAMES = 60
"""At most this many new names per 10 minutes from one address (the default)."""


def client_from(address: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        transport=httpx2.AsyncHTTPTransport(local_address=address), timeout=30
    )


async def poll(http: httpx2.AsyncClient, room: ClassroomHandle, credential: str) -> int:
    response = await http.get(
        room.base_url + "/v1/result/none", headers={"authorization": f"Bearer {credential}"}
    )
    if response.status_code == 429:
        assert int(response.headers["retry-after"]) >= 1
    return response.status_code


async def test_one_address_cannot_enrol_names_without_end(classroom: ClassroomHandle) -> None:
    """Row 7: 150 new class-code names from one address: at most the window's limit are
    enrolled (the rest wait with 429 and Retry-After), names already in keep working, the
    teacher finds the address in the ledger, and another address still enrols."""
    code = classroom.class_code
    before = len(classroom.state.roster.students())
    async with client_from("127.0.0.1") as http:
        statuses = [await poll(http, classroom, f"{code}:pupil-{n}") for n in range(150)]
        again = await poll(http, classroom, f"{code}:pupil-0")
    enrolled = len(classroom.state.roster.students()) - before
    assert 1 <= enrolled <= WINDOW_LIMIT_NAMES
    assert statuses == [404] * enrolled + [429] * (150 - enrolled)
    assert again == 404  # pupil-0 is in the class: its own task list answers
    async with client_from("127.0.0.2") as other:
        assert await poll(other, classroom, f"{code}:from-elsewhere") == 404
    events = classroom.state.ledger.events()
    throttled = [e for e in events if e["action"] == "enrol_throttled"]
    assert [e["key"] for e in throttled] == ["127.0.0.1"]
    joined = {e["key"]: e["address"] for e in events if e["action"] == "joined"}
    assert joined["from-elsewhere"] == "127.0.0.2"
    assert joined["pupil-0"] == "127.0.0.1"


async def test_wrong_codes_are_throttled_per_address(classroom: ClassroomHandle) -> None:
    """Row 16: 300 wrong codes from one address: at most 20 get 401, the rest 429 with
    Retry-After, once logged for the teacher; a right code from that address still works,
    and a wrong code from another address still gets its plain 401."""
    right = next(iter(classroom.codes.values()))
    async with client_from("127.0.0.1") as http:
        statuses = [await poll(http, classroom, f"mgc-wrong{n:05d}") for n in range(300)]
        with_right_code = await poll(http, classroom, right)
    refused = statuses.count(401)
    assert 1 <= refused <= WINDOW_LIMIT_WRONG
    assert statuses == [401] * refused + [429] * (300 - refused)
    assert with_right_code == 404
    async with client_from("127.0.0.2") as other:
        assert await poll(other, classroom, "mgc-wrongagain") == 401
    logged = [e for e in classroom.state.ledger.events() if e["action"] == "wrong_codes_throttled"]
    assert [e["key"] for e in logged] == ["127.0.0.1"]


def test_a_window_frees_as_time_passes_and_reports_each_lockout_once() -> None:
    from mediagen_nb.classroom._throttle import Window

    now = [0.0]
    window = Window(3, 60.0, clock=lambda: now[0])
    for _ in range(3):
        assert window.wait("a") is None
        window.add("a")
    assert window.wait("a") == 60.0
    assert window.wait("b") is None
    now[0] = 30.0
    assert window.wait("a") == 30.0
    assert [window.first_refusal("a"), window.first_refusal("a")] == [True, False]
    now[0] = 60.5
    assert window.wait("a") is None
    assert window.first_refusal("a")  # a new lockout is reported again
