"""``start_classroom``: the gateway on a port in a background thread, and its handle.

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
from types import TracebackType
from typing import Any, Final, Self

from mediagen_nb import _env
from mediagen_nb._home import resolve_home
from mediagen_nb._serverkit.runner import serve_in_thread
from mediagen_nb._serverkit.urls import API_PREFIX, TEXT_PREFIX
from mediagen_nb.classroom._app import WALL_PATH, create_gateway_app
from mediagen_nb.classroom._codes import (
    Roster,
    new_class_code,
    new_teacher_token,
)
from mediagen_nb.classroom._export import export_zip
from mediagen_nb.classroom._gateway import Gateway
from mediagen_nb.classroom._handle_moderation import ModerationControls
from mediagen_nb.classroom._hub import HubAuth
from mediagen_nb.classroom._moderation import Moderation
from mediagen_nb.classroom._open import open_ledger, open_upstream
from mediagen_nb.classroom._rules import Limits, Rules
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
from mediagen_nb.client._files import write_atomic

MAX_CONNECTIONS: Final = 2048
"""Open connections the gateway accepts (the emulator's 256 is too few for a class: every
student's kernel keeps a few open); one more is answered 503 and closed."""
LOGGERS: Final = ("mediagen_nb.classroom", "uvicorn", "uvicorn.error", "uvicorn.access")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


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


class ClassroomHandle(ModerationControls):
    """A running classroom gateway (use ``stop()`` or a ``with`` block)."""

    def __init__(
        self,
        *,
        gateway: Gateway,
        wall: Wall,
        server: Any,
        thread: Any,
        host: str,
        port: int,
        folder: Path,
        teacher_token: str,
    ) -> None:
        self._gw = gateway
        self._wall = wall
        self._server = server
        self._thread = thread
        self.host = host
        self.port = port
        self.folder = folder
        root = f"http://{_url_host('127.0.0.1' if host in ('0.0.0.0', '::') else host)}:{port}"
        self.root_url = root
        self.base_url = root + API_PREFIX
        """What students set as ``MEDIAGEN_BASE_URL``."""
        self.text_base_url = root + TEXT_PREFIX
        """What students set as ``MEDIAGEN_TEXT_BASE_URL``."""
        self.wall_url = root + WALL_PATH
        """The live wall (view only)."""
        self.teacher_token = teacher_token
        """Unlocks the wall's controls (send as Bearer; never give it to a student)."""
        self.teacher_url = f"{self.wall_url}#teacher={teacher_token}"
        """The wall with the teacher's controls (the token sits in the fragment)."""

    # --- people ------------------------------------------------------------------------------

    @property
    def state(self) -> ClassState:
        """The class's state (roster, rules, tasks)."""
        return self._gw.state

    @property
    def codes(self) -> dict[str, str]:
        """Student name -> personal code (revoked codes left out)."""
        return self.state.roster.codes()

    @property
    def hub(self) -> bool:
        """Whether students sign in with their JupyterHub token."""
        return self._gw.hub is not None

    @property
    def class_code(self) -> str | None:
        """The class code students combine with a name (``CODE:name``), if enabled."""
        return self.state.roster.class_code

    def add_student(self, name: str) -> str:
        """Enrol ``name``; returns the new personal code."""
        student = self.state.roster.add(name)
        self.state.ledger.save_student(student)
        return str(student.code)

    def revoke(self, name: str) -> None:
        """Revoke a student's code (401 from the next request on)."""
        student = self.state.roster.revoke(name)
        self.state.ledger.save_student(student)
        self.state.ledger.log("teacher", "revoke", student.name)

    def restore(self, name: str) -> None:
        """Give a revoked student access again."""
        self.state.ledger.save_student(self.state.roster.restore(name))

    def student_env(self, name_or_code: str) -> dict[str, str]:
        """The environment variables a student sets (by name, or a ``CODE:name`` string)."""
        code = self.codes.get(name_or_code, name_or_code)
        return {
            _env.BASE_URL: self.base_url,
            _env.TEXT_BASE_URL: self.text_base_url,
            _env.API_KEY: code,
        }

    # --- rules -------------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rules in force."""
        return self.state.rules

    def set_rules(self, rules: Rules) -> None:
        """Replace the rules (applies to the next request)."""
        self.state.set_rules(rules)

    @property
    def paused(self) -> bool:
        """Whether the class is paused."""
        return self.state.rules.paused

    def pause(self) -> None:
        """Refuse new tasks, chats and uploads until ``resume()`` (results still answer)."""
        self.state.set_paused(True)

    def resume(self) -> None:
        """Undo ``pause()``."""
        self.state.set_paused(False)

    # --- wall --------------------------------------------------------------------------------

    def usage(self) -> list[dict[str, Any]]:
        """One row per student: access, images, videos, running tasks, chat tokens."""
        return self.state.usage_table()

    def items(self, *, include_hidden: bool = False) -> list[dict[str, Any]]:
        """The wall's items, newest first."""
        from mediagen_nb.classroom._wall import wall_item

        return [wall_item(t) for t in self.state.wall_items(include_hidden=include_hidden)]

    def hide(self, task_id: str, hidden: bool = True) -> None:
        """Hide an item from the wall (``hidden=False`` shows it again)."""
        self.state.hide(task_id, hidden)

    def export(self, path: str | Path, *, include_hidden: bool = False) -> Path:
        """Write the gallery zip (media and ``gallery.csv``) to ``path``, its folder created
        if missing; a half-written zip is never left behind."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = export_zip(self.state, self._gw.media_dir, include_hidden=include_hidden)
        return write_atomic(target, data)

    @property
    def counters(self) -> dict[str, int]:
        """Requests the gateway handled, by kind, and upstream polls in all."""
        return self._gw.stats()

    @property
    def media_dir(self) -> Path:
        """Where the gateway keeps each result it fetched."""
        return self._gw.media_dir

    @property
    def upstream(self) -> Upstream:
        """The upstream (its key is never shown)."""
        return self._gw.upstream

    # --- life --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the server thread is serving."""
        return bool(self._thread.is_alive()) and not self._server.should_exit

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the gateway (and the emulator it started); idempotent."""
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._gw.upstream.stop()
        self.state.ledger.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        status = "running" if self.running else "stopped"
        return (
            f"ClassroomHandle(base_url={self.base_url!r}, wall_url={self.wall_url!r}, "
            f"students={len(self.state.roster.students())}, upstream={self.upstream.kind}, "
            f"{status})"
        )


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
