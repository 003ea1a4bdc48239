"""Who may use the gateway: student codes, the class code, the teacher token.

A student sends a personal code (``mgc-...``) or the class code joined to a name
(``mgclass-...:alice``) where the service expects its API key, in ``Authorization: Bearer``
or ``x-api-key``. Either can be revoked while the class runs (401 from then on).
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

CODE_PREFIX: Final = "mgc-"
CLASS_CODE_PREFIX: Final = "mgclass-"
_ALPHABET: Final = "abcdefghjkmnpqrstuvwxyz23456789"
"""No 0/o, 1/l/i: codes are read off a slide and typed."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$")
_HUB_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,100}$")
"""A JupyterHub user name as the hub gives it (the hub decides what is allowed)."""


def _token(length: int) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def new_code() -> str:
    """A fresh personal code (50 random bits)."""
    return CODE_PREFIX + _token(10)


def new_class_code() -> str:
    """A fresh class code (35 random bits; it is combined with a name)."""
    return CLASS_CODE_PREFIX + _token(7)


def new_teacher_token() -> str:
    """The teacher's token for the wall's controls (over 190 random bits)."""
    return "mgt-" + secrets.token_urlsafe(24)


def check_name(name: str) -> str:
    """``name`` stripped, or ValueError saying what a name may hold."""
    cleaned = name.strip()
    if not _NAME.match(cleaned):
        raise ValueError(
            f"student name {name!r} is not allowed: use 1-40 letters, digits, spaces, "
            "'.', '_' or '-', starting with a letter or digit"
        )
    return cleaned


def read_roster(text: str) -> list[str]:
    """Read the student names of a roster file (``--roster names.txt``).

    Args:
        text: The file's text: one name per line; blank lines and ``#`` comments are
            skipped.

    Returns:
        The names in file order, surrounding spaces dropped.

    Raises:
        ValueError: A line holds a name that is not allowed (1-40 letters, digits, spaces,
            ``.``, ``_`` or ``-``, starting with a letter or digit), or a name is listed
            twice (compared case-insensitively); the message gives the line number.
    """
    names: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        raw = line.split("#", 1)[0].strip()
        if not raw:
            continue
        try:
            name = check_name(raw)
        except ValueError as error:
            raise ValueError(f"roster line {number}: {error}") from None
        if name.casefold() in seen:
            raise ValueError(f"roster line {number}: {name!r} is listed twice")
        seen.add(name.casefold())
        names.append(name)
    return names


@dataclass
class Student:
    """One student of the class.

    Attributes:
        name: The name shown on the wall (case kept, compared case-insensitively).
        code: The student's personal code (``mgc-...``), or None for a student who joined
            with the class code (``CLASSCODE:name``) or through JupyterHub.
        revoked: The teacher revoked the student: every request gets 401.
        groups: JupyterHub groups, as the hub said at the student's last request (kept in
            the ledger across restarts).
    """

    name: str
    code: str | None
    revoked: bool = False
    groups: tuple[str, ...] = ()


class Roster:
    """The students and the class code.

    Thread-safe: the teacher's kernel revokes codes while the gateway's loop checks them.

    Args:
        students: The students enrolled so far.
        class_code: The class code students combine with a name (None: students need a
            personal code).
    """

    def __init__(self, students: Iterable[Student] = (), class_code: str | None = None) -> None:
        self._lock = threading.Lock()
        self._by_name: dict[str, Student] = {}
        self._by_code: dict[str, Student] = {}
        self.class_code = class_code
        """The class code (None: students need a personal code)."""
        for student in students:
            self._add(student)

    def _add(self, student: Student) -> None:
        self._by_name[student.name.casefold()] = student
        if student.code is not None:
            self._by_code[student.code] = student

    def add(self, name: str, code: str | None = None) -> Student:
        """Enrol a student.

        Args:
            name: The student's name (1-40 letters, digits, spaces, ``.``, ``_`` or ``-``).
            code: Their personal code (default: a fresh one).

        Returns:
            The enrolled student.

        Raises:
            ValueError: The name is not allowed or already enrolled.
        """
        cleaned = check_name(name)
        with self._lock:
            if cleaned.casefold() in self._by_name:
                raise ValueError(f"a student named {cleaned!r} is already enrolled")
            student = Student(cleaned, code or new_code())
            self._add(student)
            return student

    def resolve(self, credential: str) -> tuple[Student | None, bool]:
        """The student a credential names.

        Args:
            credential: A personal code, or ``CLASSCODE:name`` (a new name is enrolled now).

        Returns:
            The student and whether they were enrolled now; ``(None, False)`` for an
            unknown, malformed or revoked credential.
        """
        with self._lock:
            student = self._by_code.get(credential)
            if student is not None and hmac.compare_digest(student.code or "", credential):
                return (None if student.revoked else student), False
            return self._join_with_class_code(credential)

    def joining(self, credential: str) -> str | None:
        """The new name a class-code credential would enrol now.

        Args:
            credential: What the student sent as their key.

        Returns:
            The name, or None: a personal code, a known name, a wrong class code or a
            malformed name enrol nobody.
        """
        cleaned = self._class_code_name(credential)
        with self._lock:
            return None if cleaned is None or cleaned.casefold() in self._by_name else cleaned

    def _class_code_name(self, credential: str) -> str | None:
        """The name in ``CLASSCODE:name`` when the class code matches and the name is valid."""
        if self.class_code is None or ":" not in credential:
            return None
        code, _, name = credential.partition(":")
        if not hmac.compare_digest(code.encode(), self.class_code.encode()):
            return None
        try:
            return check_name(name)
        except ValueError:
            return None

    def _join_with_class_code(self, credential: str) -> tuple[Student | None, bool]:
        cleaned = self._class_code_name(credential)
        if cleaned is None:
            return None, False
        known = self._by_name.get(cleaned.casefold())
        if known is not None:
            # A name that has a personal code must use it; the class code cannot borrow it.
            return (None if known.revoked or known.code is not None else known), False
        student = Student(cleaned, None)
        self._add(student)
        return student, True

    def merge(self, students: Iterable[Student]) -> None:
        """Take students as another gateway saved them (a shared ledger's changes).

        Args:
            students: The saved students: new ones join, known ones take the saved code and
                access.
        """
        with self._lock:
            for saved in students:
                known = self._by_name.get(saved.name.casefold())
                if known is None:
                    self._add(Student(saved.name, saved.code, saved.revoked))
                    continue
                if known.code != saved.code and known.code is not None:
                    self._by_code.pop(known.code, None)
                known.code, known.revoked = saved.code, saved.revoked
                if known.code is not None:
                    self._by_code[known.code] = known

    def hub_user(self, name: str, groups: Iterable[str]) -> tuple[Student | None, bool]:
        """The student a JupyterHub user is, enrolled on first sight.

        Args:
            name: The hub user's name.
            groups: The user's hub groups (kept for their limits).

        Returns:
            The student and whether they were enrolled now; ``(None, False)`` when revoked
            or the name is not one a hub gives.
        """
        if not _HUB_NAME.match(name):
            return None, False
        with self._lock:
            known = self._by_name.get(name.casefold())
            if known is not None:
                known.groups = tuple(groups)
                return (None if known.revoked else known), False
            student = Student(name, None, groups=tuple(groups))
            self._add(student)
            return student, True

    def revoke(self, name: str) -> Student:
        """Revoke a student's access.

        Args:
            name: The student's name (any case, surrounding spaces ignored).

        Returns:
            The student, now revoked.

        Raises:
            KeyError: No student has that name.
        """
        with self._lock:
            student = self._by_name.get(name.strip().casefold())
            if student is None:
                raise KeyError(f"no student named {name!r}")
            student.revoked = True
            return student

    def restore(self, name: str) -> Student:
        """Undo ``revoke``.

        Args:
            name: The student's name (any case, surrounding spaces ignored).

        Returns:
            The student, with access again.

        Raises:
            KeyError: No student has that name.
        """
        with self._lock:
            student = self._by_name.get(name.strip().casefold())
            if student is None:
                raise KeyError(f"no student named {name!r}")
            student.revoked = False
            return student

    def students(self) -> list[Student]:
        """Every student, in enrolment order."""
        with self._lock:
            return list(self._by_name.values())

    def codes(self) -> dict[str, str]:
        """Name -> personal code, for students who have one and are not revoked."""
        with self._lock:
            return {
                s.name: s.code
                for s in self._by_name.values()
                if s.code is not None and not s.revoked
            }
