"""``ClassroomHandle``: what ``start_classroom`` returns to the teacher."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any, Self

from mediagen_nb import _env
from mediagen_nb._serverkit.urls import API_PREFIX, TEXT_PREFIX
from mediagen_nb.classroom._app import WALL_PATH
from mediagen_nb.classroom._export import export_zip
from mediagen_nb.classroom._gateway import Gateway
from mediagen_nb.classroom._handle_moderation import ModerationControls
from mediagen_nb.classroom._rules import Rules
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._upstream import Upstream
from mediagen_nb.classroom._wall import Wall
from mediagen_nb.client._files import write_atomic


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class ClassroomHandle(ModerationControls):
    """A running classroom gateway, as ``start_classroom`` returns it.

    Use ``stop()`` or a ``with`` block to end it. ``base_url`` and ``text_base_url`` are
    what students set; ``teacher_url`` opens the wall with the teacher's controls.

    Args:
        gateway: The gateway's state and upstream.
        wall: The wall it serves.
        server: The uvicorn server serving it.
        thread: The thread the server runs in.
        host: The address it listens on.
        port: Its port.
        folder: The class folder (ledger, media, exports).
        teacher_token: The token that unlocks the wall's controls.
    """

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
        """Enrol a student with a new personal code.

        Args:
            name: The student's name (1-40 letters, digits, spaces, ``.``, ``_`` or ``-``).

        Returns:
            The personal code to hand to the student.

        Raises:
            ValueError: The name is not allowed or already enrolled.
        """
        student = self.state.roster.add(name)
        self.state.ledger.save_student(student)
        return str(student.code)

    def revoke(self, name: str) -> None:
        """Revoke a student's access: 401 from the student's next request on.

        Args:
            name: The student's name (any case).

        Raises:
            KeyError: No student has that name.
        """
        student = self.state.roster.revoke(name)
        self.state.ledger.save_student(student)
        self.state.ledger.log("teacher", "revoke", student.name)

    def restore(self, name: str) -> None:
        """Give a revoked student access again.

        Args:
            name: The student's name (any case).

        Raises:
            KeyError: No student has that name.
        """
        self.state.ledger.save_student(self.state.roster.restore(name))

    def student_env(self, name_or_code: str) -> dict[str, str]:
        """The environment variables a student sets to use the gateway.

        Args:
            name_or_code: A student's name (their personal code is used), or the credential
                itself (a code, or ``CLASSCODE:name``).

        Returns:
            ``MEDIAGEN_BASE_URL``, ``MEDIAGEN_TEXT_BASE_URL`` and ``MEDIAGEN_API_KEY``.
        """
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
        """Replace the rules; they apply from the next request on and are kept in the
        class's ledger.

        Args:
            rules: The new rules.
        """
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
        """The wall's items, newest first.

        Args:
            include_hidden: Include the items the teacher hid (marked ``hidden``).

        Returns:
            One dict per item: ``id``, ``student``, ``prompt``, ``kind``, ``model``, ``url``
            (on the gateway), ``finished``, ``hidden``.
        """
        from mediagen_nb.classroom._wall import wall_item

        return [wall_item(t) for t in self.state.wall_items(include_hidden=include_hidden)]

    def hide(self, task_id: str, hidden: bool = True) -> None:
        """Hide an item from the wall, or show it again.

        Args:
            task_id: The item's ``id``.
            hidden: False shows it again.

        Raises:
            KeyError: The class has no task with that id.
        """
        self.state.hide(task_id, hidden)

    def export(self, path: str | Path, *, include_hidden: bool = False) -> Path:
        """Write the gallery as one zip: the media files and ``gallery.csv``.

        The folder is created if missing; a half-written zip is never left behind.

        Args:
            path: Where to write the zip.
            include_hidden: Include the items the teacher hid.

        Returns:
            The path written.
        """
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
        """Stop the gateway (and the emulator it started); calling it again does nothing.

        Args:
            timeout: Seconds to wait for the server thread to end.
        """
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
