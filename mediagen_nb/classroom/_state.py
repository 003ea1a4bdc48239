"""The class in memory: roster, rules, tasks and usage, kept in step with the ledger.

Every change happens under one lock and is in the ledger before anyone can see it. On a
ledger several gateways share, memory is a short-lived copy that ``sync`` refreshes.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, replace
from typing import Any

from mediagen_nb.classroom._budget import Claim, Reservation, model_name
from mediagen_nb.classroom._codes import Roster, Student
from mediagen_nb.classroom._hub_groups import GroupKeeper
from mediagen_nb.classroom._ledger import ClassLedger
from mediagen_nb.classroom._moderation import Moderation
from mediagen_nb.classroom._rows import TaskRecord, task_data
from mediagen_nb.classroom._rules import Limits, Rules, Usage, paused_refusal
from mediagen_nb.classroom._shared import Changes, SharedLedger, StaleWriteError

Listener = Callable[[], None]


def rules_to_json(rules: Rules) -> dict[str, Any]:
    """The rules as JSON for the ledger."""

    def lim(limits: Limits) -> dict[str, int | None]:
        return {
            "images": limits.images,
            "videos": limits.videos,
            "concurrent": limits.concurrent,
            "chat_tokens": limits.chat_tokens,
        }

    return {
        "models": None if rules.models is None else sorted(rules.models),
        "limits": lim(rules.limits),
        "per_student": {k: lim(v) for k, v in rules.per_student.items()},
        "per_group": {k: lim(v) for k, v in rules.per_group.items()},
        "class_limits": lim(rules.class_limits),
        "paused": rules.paused,
        "chat_reserve": rules.chat_reserve,
    }


def rules_from_json(data: dict[str, Any]) -> Rules:
    """Inverse of :func:`rules_to_json`."""
    models = data.get("models")
    return Rules(
        models=None if models is None else frozenset(models),
        limits=Limits(**data.get("limits", {})),
        per_student={k: Limits(**v) for k, v in data.get("per_student", {}).items()},
        per_group={k: Limits(**v) for k, v in data.get("per_group", {}).items()},
        class_limits=Limits(**data.get("class_limits", {})),
        paused=bool(data.get("paused", False)),
        chat_reserve=int(data.get("chat_reserve", Rules.chat_reserve)),
    )


class ClassState:
    """See the module docstring."""

    def __init__(self, ledger: ClassLedger, roster: Roster, rules: Rules) -> None:
        self.ledger = ledger
        self.roster = roster
        self._rules = rules
        self._lock = threading.RLock()
        self.tasks: dict[str, TaskRecord] = {}
        self._by_media: dict[str, TaskRecord] = {}
        self._tokens: dict[str, int] = {}
        self._held: dict[str, Reservation] = {}
        self._listeners: list[Listener] = []
        self.moderation = Moderation()
        """Prompt rules and approval (``set_moderation``)."""
        self.version = 0
        """Bumped on every change the wall shows (the feed's cheap change marker)."""
        self.shared: SharedLedger | None = ledger if isinstance(ledger, SharedLedger) else None
        """The ledger, when other gateways share it (then ``sync`` catches up on them)."""
        self._synced: float | None = None
        self.groups = GroupKeeper(ledger, roster)
        """Hub students' groups, kept in the ledger across restarts (``_hub_groups``)."""

    @contextmanager
    def _changing(self) -> Iterator[None]:
        with self._lock:
            yield
            self.version += 1
        for listener in list(self._listeners):
            listener()

    def on_change(self, listener: Listener) -> None:
        """Call ``listener`` (from any thread) after each change the wall shows."""
        self._listeners.append(listener)

    # --- loading ---------------------------------------------------------------------------------

    def load(self, tasks: list[TaskRecord], tokens: dict[str, int]) -> None:
        """Take tasks and usage read from the ledger at start."""
        with self._lock:
            self.tasks = {t.id: t for t in tasks}
            self._by_media = {t.media: t for t in tasks if t.media}
            self._tokens = dict(tokens)

    # --- a ledger shared with other gateways ---------------------------------------------

    def sync(self) -> None:
        """Catch up on what the other gateways changed (nothing on an unshared ledger)."""
        if self.shared is None:
            return
        found = self.shared.changes(self._synced)
        self._synced = found.at
        self.roster.merge(found.students)
        self.roster.class_code = found.settings.get("class_code", self.roster.class_code)
        if self._catch_up(found) or found.students:
            with self._changing():
                pass

    def _catch_up(self, found: Changes) -> bool:
        saved = found.settings.get("rules")
        rules = rules_from_json(saved) if saved else self._rules
        kept = found.settings.get("moderation")
        with self._lock:
            changed = rules != self._rules or found.chat_tokens != self._tokens
            if kept is not None and kept != self.moderation.to_json():  # rules or approval
                moderation = Moderation.from_json(kept)
                moderation.refusals.extend(self.moderation.refusals)
                self.moderation, changed = moderation, True
            self._rules = rules
            self._tokens = dict(found.chat_tokens)
            for record in found.tasks:
                changed = self._take(record) or changed
        return changed

    def _take(self, record: TaskRecord) -> bool:
        """Keep ``record`` as another gateway saved it, unless ours is as new (call under the
        lock); an object already held is updated in place (a follower may hold it)."""
        mine = self.tasks.get(record.id)
        if mine is None:
            self.tasks[record.id] = mine = record
        elif record.updated <= mine.updated:
            return False
        else:
            for name, value in task_data(record).items():
                setattr(mine, name, value)
        if mine.media:
            self._by_media[mine.media] = mine
        return True

    def adopt(self, records: list[TaskRecord]) -> list[TaskRecord]:
        """Take tasks read from the shared ledger; the copies this gateway holds."""
        with self._changing():
            for record in records:
                self._take(record)
            return [self.tasks[r.id] for r in records]

    # --- rules -----------------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The rules in force."""
        return self._rules

    def set_rules(self, rules: Rules) -> None:
        """Replace the rules (written to the ledger first)."""
        with self._changing():
            self.ledger.save_setting("rules", rules_to_json(rules))
            self._rules = rules

    def set_moderation(self, moderation: Moderation) -> None:
        """Replace the prompt rules and the approval switch (written to the ledger first).
        Turning approval on keeps what the wall shows now: those items count as approved."""
        seen = self.wall_items() if moderation.approve and not self.moderation.approve else []
        for task in seen:
            task.approved = True
            self.put_task(task)
        with self._changing():
            self.ledger.save_setting("moderation", moderation.to_json())
            moderation.refusals.extend(self.moderation.refusals)
            self.moderation = moderation

    def note_blocked(self, student: str, where: str, asked: str, prompt: str, rule: str) -> None:
        """A prompt a rule refused (``where``: family or chat path; ``asked``: what was asked
        for, "image · nano-banana"): an event in the ledger, a line in the teacher's views."""
        self.ledger.log(student, "blocked", where, asked=asked, prompt=prompt, rule=rule)
        entry = {"ts": time.time(), "student": student, "where": where, "asked": asked}
        with self._changing():
            self.moderation.refusals.appendleft({**entry, "prompt": prompt, "rule": rule})

    def set_paused(self, paused: bool) -> None:
        """Pause or resume the class."""
        self.set_rules(replace(self._rules, paused=paused))
        self.ledger.log("teacher", "pause" if paused else "resume", "class")

    # --- students --------------------------------------------------------------------------------

    def enrolled(self, student: Student, address: str = "") -> None:
        """A student joined with the class code (from ``address``): keep them in the ledger."""
        self.ledger.save_student(student)
        self.ledger.log(student.name, "joined", student.name, address=address)
        with self._changing():
            pass

    # --- usage and checks --------------------------------------------------------------------

    def usage(self, student: str | None = None) -> Usage:
        """Usage of one student (None: the whole class)."""
        every = self.usage_by_student()
        if student is not None:
            return every.get(student.casefold(), Usage())
        fields = (astuple(used) for used in every.values())
        return Usage(*(sum(column) for column in zip(*fields, strict=True)))

    def usage_by_student(self) -> dict[str, Usage]:
        """Every student's usage by folded name, in one pass over the tasks."""
        tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        with self._lock:
            for task in self.tasks.values():
                if not task.refused:
                    counts = tally[task.student.casefold()]
                    counts[0] += task.kind == "image"
                    counts[1] += task.kind == "video"
                    counts[2] += not task.done
            for held in self._held.values():
                if held.claim.kind != "chat":
                    tally[held.student.casefold()][2] += 1
            for name, tokens in self._tokens.items():
                tally[name.casefold()][3] += tokens
        return {folded: Usage(*counts) for folded, counts in tally.items()}

    def reserve(self, claim: Claim) -> Reservation | str:
        """Check ``claim`` and hold it (one step of the ledger): the reservation, or the
        sentence refusing it. Every reservation ends in a ``settle_*`` or ``release``."""
        held = self.ledger.reserve(self._rules, claim)
        if isinstance(held, Reservation):
            with self._lock:
                self._held[held.id] = held
        return held

    def settle_task(self, held: Reservation, record: TaskRecord) -> None:
        """The create was answered: store its task in place of the reservation."""
        record.updated = time.time()
        self.ledger.settle(held, task=record)
        with self._changing():
            self._held.pop(held.id, None)
            self.tasks[record.id] = record

    def settle_chat(self, held: Reservation, tokens: int, outcome: str) -> None:
        """The chat ended: count its real tokens in place of the reservation."""
        claim = held.claim
        self.ledger.settle(held, tokens=tokens, outcome=outcome)
        self.ledger.log(
            claim.student,
            "chat_end",
            claim.what,
            model=model_name(claim.model),
            tokens=tokens,
            outcome=outcome,
        )
        with self._changing():
            self._held.pop(held.id, None)
            self._tokens[claim.student] = self._tokens.get(claim.student, 0) + tokens

    def release(self, held: Reservation) -> None:
        """Give back a reservation nothing used (nothing happens once it was settled)."""
        with self._lock:
            if self._held.pop(held.id, None) is None:
                return
        self.ledger.release(held)

    def open_reservations(self) -> list[Reservation]:
        """Reservations of requests still running."""
        with self._lock:
            return list(self._held.values())

    def check_asset(self) -> str | None:
        """Refusal for an asset request (only the pause applies)."""
        return paused_refusal(self._rules)

    # --- tasks -----------------------------------------------------------------------------------

    def put_task(self, record: TaskRecord) -> None:
        """Insert or update a task (ledger first, then memory)."""
        record.updated = time.time()
        try:
            self.ledger.save_task(record)
        except StaleWriteError:  # another gateway stored its result first: take that one
            stored = self.shared.find_task(task_id=record.id) if self.shared else None
            if stored is None:
                raise
            for name, value in task_data(stored).items():
                setattr(record, name, value)
        with self._changing():
            self.tasks[record.id] = record
            if record.media:
                self._by_media[record.media] = record

    def task_for(self, task_id: str, student: str) -> TaskRecord | None:
        """The task if it belongs to ``student``."""
        with self._lock:
            task = self.tasks.get(task_id)
        if task is None and self.shared is not None:  # made through another gateway just now
            found = self.shared.find_task(task_id=task_id)
            task = self.adopt([found])[0] if found is not None else None
        if task is None or task.student.casefold() != student.casefold():
            return None
        return task

    def task_by_media(self, name: str) -> TaskRecord | None:
        """The task whose stored result is the file ``name``."""
        with self._lock:
            task = self._by_media.get(name)
        if task is None and self.shared is not None:
            found = self.shared.find_task(media=name)
            task = self.adopt([found])[0] if found is not None else None
        return task

    def in_flight(self) -> list[TaskRecord]:
        """Tasks the gateway still has to follow."""
        with self._lock:
            return [t for t in self.tasks.values() if not t.done and not t.refused]

    def hide(self, task_id: str, hidden: bool = True) -> TaskRecord:
        """Hide (or show again) a task on the wall; KeyError for an unknown id."""
        with self._lock:
            task = self.tasks.get(task_id)
        if task is None:
            raise KeyError(f"no task {task_id!r} in this class")
        task.hidden = hidden
        self.put_task(task)
        self.ledger.log("teacher", "hide" if hidden else "show", task_id)
        return task

    def approve(self, task_id: str) -> TaskRecord:
        """Approve a task for the wall (it is shown again if it was hidden); KeyError for an
        unknown id."""
        with self._lock:
            task = self.tasks.get(task_id)
        if task is None:
            raise KeyError(f"no task {task_id!r} in this class")
        task.approved, task.hidden = True, False
        self.put_task(task)
        self.ledger.log("teacher", "approve", task_id)
        return task

    def wall_items(self, *, include_hidden: bool = False) -> list[TaskRecord]:
        """Completed tasks with stored media, newest first (``include_hidden``: those hidden
        or waiting for approval too)."""
        public = self.moderation.public
        with self._lock:
            items = [
                t
                for t in self.tasks.values()
                if t.status == "completed" and t.media and (include_hidden or public(t))
            ]
        return sorted(items, key=lambda t: (t.updated, t.id), reverse=True)

    def waiting(self) -> list[TaskRecord]:
        """Items waiting for the teacher's approval, oldest created first (none unless the
        class needs approval)."""
        if not self.moderation.approve:
            return []
        items = [t for t in self.wall_items(include_hidden=True) if not t.hidden and not t.approved]
        return sorted(items, key=lambda t: (t.created, t.id))

    def usage_table(self) -> list[dict[str, Any]]:
        """One row per student: name, status, images, videos, running, chat tokens, and
        ``limits`` (the caps that apply to the student, None where there is none; ``running``
        is capped by ``concurrent``)."""
        rows = []
        usage = self.usage_by_student()
        rules = self._rules
        for student in self.roster.students():
            used = usage.get(student.name.casefold(), Usage())
            caps = rules.limits_for(student.name, student.groups)
            rows.append(
                {
                    "student": student.name,
                    "access": "revoked" if student.revoked else "active",
                    "images": used.images,
                    "videos": used.videos,
                    "running": used.in_flight,
                    "chat_tokens": used.chat_tokens,
                    "limits": {
                        "images": caps.images,
                        "videos": caps.videos,
                        "running": caps.concurrent,
                        "chat_tokens": caps.chat_tokens,
                    },
                }
            )
        return rows
