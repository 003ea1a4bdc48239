"""``start_classroom``: the gateway on a port in a background thread (its handle: ``_handle``).

The class lives in a folder (default ``$MEDIAGEN_HOME/classroom``): the ledger, the stored
media, and the built-in emulator's journal when that is the upstream. Starting again on the
same folder keeps the codes, rules and usage and resumes every task still in flight.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from mediagen_nb._home import resolve_home
from mediagen_nb._serverkit.runner import serve_in_thread
from mediagen_nb.classroom._app import create_gateway_app
from mediagen_nb.classroom._codes import (
    Roster,
    new_class_code,
    new_teacher_token,
)
from mediagen_nb.classroom._gateway import Gateway
from mediagen_nb.classroom._handle import ClassroomHandle
from mediagen_nb.classroom._hub import HubAuth
from mediagen_nb.classroom._moderation import Moderation
from mediagen_nb.classroom._open import open_ledger, open_upstream
from mediagen_nb.classroom._rules import Limits
from mediagen_nb.classroom._shared import LEASE_S
from mediagen_nb.classroom._start import start_roster, start_rules
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._throttle import ENROL_LIMIT, Guard
from mediagen_nb.classroom._upstream import (
    DEFAULT_EMULATOR_SPEED,
    Upstream,
    UpstreamChoice,
)
from mediagen_nb.classroom._wall import Wall
from mediagen_nb.client._config import get_logger, install_log_redaction

MAX_CONNECTIONS: Final = 2048
"""Open connections the gateway accepts (the emulator's 256 is too few for a class: every
student's kernel keeps a few open); one more is answered 503 and closed."""
LOGGERS: Final = ("mediagen_nb.classroom", "uvicorn", "uvicorn.error", "uvicorn.access")


def is_loopback(host: str) -> bool:
    """Whether ``host`` binds loopback only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def share_addresses(port: int) -> list[str]:
    """Addresses of this machine students on the network may use (best effort)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if not ipaddress.ip_address(address).is_loopback:
                found.add(address)
    except OSError:
        pass
    return [f"http://{a}:{port}" for a in sorted(found)]


def start_classroom(
    students: int | Sequence[str] = 0,
    *,
    roster: Path | None = None,
    class_code: bool | str = False,
    models: Iterable[str] | None = None,
    limits: Limits | None = None,
    class_limits: Limits | None = None,
    group_limits: dict[str, Limits] | None = None,
    jupyterhub: str | HubAuth | None = None,
    prefix: str = "",
    upstream: UpstreamChoice | Upstream = "auto",
    speed: float = DEFAULT_EMULATOR_SPEED,
    host: str = "127.0.0.1",
    port: int = 0,
    cors_origins: Sequence[str] = (),
    folder: Path | None = None,
    enrol_limit: int = ENROL_LIMIT,
    ledger: str | None = None,
    lease: float = LEASE_S,
    blocked: Iterable[str] | None = None,
    approve: bool | None = None,
) -> ClassroomHandle:
    """Start a classroom gateway and return its handle.

    Example:
        ```python
        room = mg.start_classroom(30, limits=Limits(images=5, videos=1))
        room.codes  # {"student-01": "mgc-...", ...}
        ```

    Args:
        students: A number of personal codes to make, or a list of names.
        roster: A file of names, one per line.
        class_code: True makes a class code students join with as ``CODE:name`` (a string
            sets the code).
        models: The models students may use; None: all.
        limits: Each student's budget.
        class_limits: The whole class's budget.
        group_limits: Budgets per JupyterHub group (``{"teachers": Limits(), "class-7b":
            Limits(images=5)}``); a student in several listed groups gets the first one's.
        jupyterhub: The hub's API URL (``JUPYTERHUB_API_URL``) or a :class:`HubAuth`:
            students' hub tokens then sign them in (codes still work).
        prefix: A path the gateway is also served under (a hub service's
            ``/services/<name>/``).
        upstream: ``auto`` (the service when ``MEDIAGEN_API_KEY`` is set, else the
            emulator), ``emulator``, ``service``, or an :class:`Upstream`.
        speed: The emulator's speed, when it is the upstream.
        host: The interface to bind; anything but loopback prints a warning.
        port: The port to listen on; 0: any free port.
        cors_origins: Origins whose pages may call the gateway (none by default).
        folder: Where the ledger and media live (default ``$MEDIAGEN_HOME/classroom``); a
            gateway started again on it keeps codes, rules, usage and wall.
        enrol_limit: New class-code names one client address may enrol per 10 minutes.
        blocked: Prompt rules that refuse a prompt before it is sent: words or phrases
            (whole words, any case) and ``re:PATTERN`` regular expressions; None: as the
            class folder kept them.
        approve: True: the wall shows only items the teacher approved; None: as kept.
        ledger: None keeps the class in SQLite in ``folder``; a ``postgresql://`` URL keeps
            it in PostgreSQL, shared by every gateway started on it (give them one
            ``folder`` for media, and one upstream: not an emulator each).
        lease: Seconds a gateway holds a task in flight without renewing it before
            another gateway takes it over (a shared ledger only).

    Returns:
        The handle: ``codes``, ``base_url``, ``text_base_url``, ``wall_url``, ``stop()``.

    Raises:
        ValueError: ``students`` is neither a count nor names, the upstream ``service``
            is asked for without a key or base URLs (naming the variable), a blocked rule
            is too long or does not compile, ``ledger`` is not a ``postgresql://`` URL, or
            gateways sharing a ledger would each start an emulator.
        RuntimeError: ``ledger`` is a PostgreSQL URL and psycopg is not installed.
    """
    install_log_redaction()
    for name in LOGGERS:
        get_logger(name)
    folder = Path(folder) if folder is not None else resolve_home() / "classroom"
    store = open_ledger(ledger, folder, lease)
    try:
        snap = store.load()
        people = start_roster(snap.students, students, roster)
        rules = start_rules(snap.settings.get("rules"), models, limits, class_limits, group_limits)
        kept = Moderation.from_json(snap.settings.get("moderation"))
        moderation = kept.updated(blocked, approve)
        up = open_upstream(upstream, folder, speed, shared=ledger is not None)
    except Exception:
        store.close()
        raise
    code = snap.settings.get("class_code")
    if isinstance(class_code, str) and class_code:
        code = class_code
    elif class_code and not code:
        code = new_class_code()
    token = snap.settings.get("teacher_token") or new_teacher_token()
    state = ClassState(store, Roster(people, class_code=code), rules)
    state.load(snap.tasks, snap.chat_tokens)
    state.groups.load()
    for student in people:
        store.save_student(student)
    store.save_setting("class_code", code)
    store.save_setting("teacher_token", token)
    state.set_rules(rules)
    state.moderation = kept  # as the class left it; a switch to approval keeps what was shown
    state.set_moderation(moderation)
    moderation.refusals.extend(
        {k: e.get(k) for k in ("ts", "student", "asked", "prompt", "rule")} | {"where": e["key"]}
        for e in store.events(5000)
        if e["action"] == "blocked"
    )
    hub = HubAuth(jupyterhub) if isinstance(jupyterhub, str) else jupyterhub
    gw = Gateway(
        state, up, folder / "media", guard=Guard(enrol_limit), hub=hub, teacher_token=str(token)
    )
    gw.media_dir.mkdir(parents=True, exist_ok=True)
    wall = Wall(state, gw.media_dir, token, stats=gw.stats)
    app = create_gateway_app(gw, wall, cors_origins, prefix)
    try:
        if not is_loopback(host):
            warnings.warn(
                f"the classroom gateway listens on {host}: anyone who can reach this machine "
                "and holds a class code can use your budget",
                stacklevel=2,
            )
        server, thread, bound = serve_in_thread(
            app,
            host,
            port,
            what="the classroom gateway",
            lifespan="on",
            max_connections=MAX_CONNECTIONS,
        )
    except Exception:
        up.stop()
        store.close()
        raise
    logging.getLogger("mediagen_nb.classroom").info("classroom gateway on %s:%s", host, bound)
    return ClassroomHandle(
        gateway=gw,
        wall=wall,
        server=server,
        thread=thread,
        host=host,
        port=bound,
        folder=folder,
        teacher_token=str(token),
    )
