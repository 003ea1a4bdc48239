"""What every student route and the pipeline share: the gateway object and the student."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import httpx2
from starlette.requests import Request

from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._hub import HubAuth
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._throttle import Guard
from mediagen_nb.classroom._tracker import Tracker
from mediagen_nb.classroom._upstream import Upstream

STUDENT_KEY: Final = "mediagen.student"
"""Scope key under which the front middleware puts the authenticated :class:`Student`."""


@dataclass
class Gateway:
    """What every route needs; ``http`` exists while the server runs (its lifespan)."""

    state: ClassState
    upstream: Upstream
    media_dir: Path
    http: httpx2.AsyncClient | None = None
    tracker: Tracker | None = None
    counters: dict[str, int] = field(default_factory=dict)
    guard: Guard = field(default_factory=Guard)
    """Per-address limits on wrong codes and enrolments (the front applies them)."""
    hub: HubAuth | None = None
    """JupyterHub sign-in (None: codes only)."""
    teacher_token: str = ""

    def is_teacher(self, token: str) -> bool:
        """Whether ``token`` is the teacher's (never true while no token is set)."""
        return bool(self.teacher_token) and hmac.compare_digest(
            token.encode(), self.teacher_token.encode()
        )

    def client(self) -> httpx2.AsyncClient:
        """The shared upstream client (RuntimeError outside the server's lifespan)."""
        if self.http is None:
            raise RuntimeError("the gateway is not running")
        return self.http

    def count(self, name: str) -> None:
        """Bump a counter (shown to the teacher and the bench)."""
        self.counters[name] = self.counters.get(name, 0) + 1

    def stats(self) -> dict[str, int]:
        """Requests handled by kind, and the result polls sent upstream in all (this run)."""
        polls = sum(t.upstream_polls for t in list(self.state.tasks.values()))
        return {**self.counters, "upstream_polls": polls}


def student_of(request: Request) -> Student:
    """The student the front middleware authenticated."""
    student: Student = request.scope[STUDENT_KEY]
    return student
