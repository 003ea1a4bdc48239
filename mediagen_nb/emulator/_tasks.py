"""Image and video task records: timeline, payloads, poll gate, expiry and purge (no HTTP).

Status is a pure function of the emulator clock; the timeline, poll gate and retention
choices are described under "Inside the emulator" in ``docs/reference/design.md``.
"""

from __future__ import annotations

import heapq
import logging
import secrets
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from mediagen_nb._serverkit.errors import dumps
from mediagen_nb.catalog import FAMILIES, Family
from mediagen_nb.emulator._assets import AssetStore
from mediagen_nb.emulator._conventions import judge
from mediagen_nb.emulator._journal import Record, TaskJournal
from mediagen_nb.emulator._render import MediaCache, MediaSpec, media_spec, total_tokens
from mediagen_nb.emulator._runtime import Runtime
from mediagen_nb.types import validate_request

DEFAULT_RETENTION_S: Final = 2 * 86_400.0
"""Record retention for families whose retention the spec does not show (2 days)."""
MAX_TASKS: Final = 10_000
"""Records kept at most; the oldest are purged first."""
QUEUED_SHARE: Final = 0.15
"""Share of a video's generation time spent ``queued`` (at least 1.5 poll intervals, at
most half), so a polite poller sees ``queued`` once."""
POLL_TOLERANCE: Final = 0.02
"""A poll this much earlier than the family's minimum interval is still answered (clock
jitter)."""
MAX_ERROR_PROBLEMS: Final = 50
"""A rejected create lists at most this many problems in ``error``."""
DURATION_FAMILIES: Final = frozenset({"seedance", "seedance2", "sd2_manxue", "vidu"})
"""Families whose results carry ``actualDuration`` (spec: seedance, sd2, vidu)."""
TERMINAL: Final = frozenset({"completed", "failed"})
log = logging.getLogger(__name__)


@dataclass(eq=False)
class EmulatedTask:
    """One task record."""

    id: str
    family: Family
    model: str
    created: int
    t0: float
    start_at: float
    done_at: float
    outcome: str
    error: str | None
    rejected: bool
    spec: MediaSpec | None
    min_interval: float
    next_poll_at: float
    asset_ids: tuple[str, ...] = ()
    media_token: str | None = None
    total_tokens: int | None = None
    expires_at: float = 0.0
    url_expires_at: float = 0.0
    cache: dict[tuple[str, str], bytes] = field(default_factory=dict)

    def status(self, now: float) -> str:
        """Status at clock time ``now``."""
        if now >= self.done_at:
            return self.outcome
        return "queued" if now < self.start_at else "processing"

    def create_payload(self) -> dict[str, Any]:
        """The create response (banana omits ``error`` on success, others send null)."""
        fam = self.family
        status = "failed" if self.rejected else ("processing" if fam.kind == "image" else "queued")
        body: dict[str, Any] = {
            "id": self.id,
            "object": fam.create_object or fam.kind,
            "created": self.created,
            "model": self.model,
            "status": status,
        }
        if self.rejected or fam.id != "banana":
            body["error"] = self.error if self.rejected else None
        return body

    def result_json(self, now: float, media_root: str) -> bytes:
        """The result response at ``now``; ``media_root`` is ``scheme://host/api/media/``."""
        status = self.status(now)
        key = (status, media_root)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        fam = self.family
        done = status == "completed"
        body: dict[str, Any] = {
            "id": self.id,
            "object": fam.result_object or fam.create_object or fam.kind,
            "created": self.created,
            "model": self.model,
            "status": status,
        }
        url = f"{media_root}{self.media_token}.{self.spec.suffix}" if done and self.spec else None
        body["image_url" if fam.kind == "image" else "video_url"] = url
        if done and fam.id in DURATION_FAMILIES and self.spec is not None:
            body["actualDuration"] = self.spec.seconds
        if fam.id == "vidu":
            body["totalTokens"] = self.total_tokens if done else None
        body["error"] = self.error if status == "failed" else None
        data = dumps(body)
        if len(self.cache) > 8:
            self.cache.clear()
        self.cache[key] = data
        return data


_RECORD_FIELDS: Final = (
    "id",
    "model",
    "created",
    "t0",
    "start_at",
    "done_at",
    "outcome",
    "error",
    "rejected",
    "min_interval",
    "media_token",
    "total_tokens",
)


def task_record(task: EmulatedTask) -> Record:
    """A JSON-able record of a task for the journal (without its caches)."""
    record = {name: getattr(task, name) for name in _RECORD_FIELDS}
    record["family"] = task.family.id
    record["asset_ids"] = list(task.asset_ids)
    spec = asdict(task.spec) if task.spec is not None else None
    if spec is not None:  # frame pictures stay in memory (a restored task draws without)
        spec.pop("first_frame", None)
        spec.pop("last_frame", None)
    record["spec"] = spec
    return record


def task_from_record(record: Record) -> EmulatedTask | None:
    """Rebuild a task from its journal record; None when the record is unusable."""
    try:
        spec = record.get("spec")
        media = None
        if isinstance(spec, dict):
            media = MediaSpec(**{**spec, "lines": tuple(spec.get("lines", ()))})
        return EmulatedTask(
            family=FAMILIES[record["family"]],
            spec=media,
            next_poll_at=0.0,
            asset_ids=tuple(record.get("asset_ids", ())),
            **{name: record[name] for name in _RECORD_FIELDS},
        )
    except (KeyError, TypeError, ValueError) as error:
        log.warning("skipping an unreadable emulator journal record: %s", error)
        return None


def _error_text(problems: list[str]) -> str:
    shown = problems[:MAX_ERROR_PROBLEMS]
    more = len(problems) - len(shown)
    return "; ".join(shown) + (f"; … ({more} more)" if more else "")


class TaskStore:
    """All task records of one emulator, with their media cache.

    Tasks read ``assets`` to judge ``asset://`` references, and fail when an asset they use
    is deleted (registered with ``assets.on_delete``).
    """

    def __init__(self, state: Runtime, assets: AssetStore) -> None:
        self._state = state
        self._assets = assets
        assets.on_delete(self.fail_tasks_using)
        self.media = MediaCache()
        self._tasks: dict[str, EmulatedTask] = {}
        self._by_token: dict[str, str] = {}
        self._by_asset: dict[str, set[str]] = {}
        self._expiry: list[tuple[float, str]] = []
        self._journal: TaskJournal | None = None

    def use_journal(self, journal: TaskJournal) -> int:
        """Replay ``journal`` (a previous emulator's tasks) and record every change into it.

        Returns how many live tasks were restored. Expired records are dropped and the file
        is compacted.
        """
        now = self._state.now()
        restored = 0
        with self._state.lock:
            for record in journal.load():
                task = task_from_record(record)
                if task is None:
                    continue
                self._set_expiry(task)
                if task.expires_at <= now or task.id in self._tasks:
                    continue
                task.next_poll_at = now
                self._remember(task)
                restored += 1
            journal.rewrite(map(task_record, self._tasks.values()))
            self._journal = journal
        return restored

    def __len__(self) -> int:
        return len(self._tasks)

    # -- creating -----------------------------------------------------------------------

    @staticmethod
    def problems(fam: Family, body: Any) -> list[str]:
        """The rules a create body breaks, as ``"field: rule"`` texts (empty when valid)."""
        try:
            problems = validate_request(fam.create_path, body)
        except Exception as error:  # validate_request promises not to raise; never 500
            return [f"(body): could not be validated ({type(error).__name__})"]
        return [str(p) for p in problems if p.is_error]

    def create(
        self,
        fam: Family,
        body: Any,
        anchors: tuple[bytes | None, bytes | None] = (None, None),
        problems: list[str] | None = None,
    ) -> EmulatedTask:
        """Validate and record a create request; rejected requests are recorded as failed.

        ``anchors``: the first and last frame pictures of a video (``_anchors``), if known.
        ``problems``: what :meth:`problems` found, when the caller already checked the body.
        """
        state = self._state
        now = state.now()
        model = body.get("model") if isinstance(body, dict) else None
        model = model[:200] if isinstance(model, str) else ""
        problems_text = self.problems(fam, body) if problems is None else problems
        interval = state.scaled(fam.min_poll_interval(model))
        task = EmulatedTask(
            id=f"{'img' if fam.kind == 'image' else 'vid'}_{state.random_hex(12)}",
            family=fam,
            model=model,
            created=int(now),
            t0=now,
            start_at=now,
            done_at=now,
            outcome="failed",
            error=_error_text(problems_text) if problems_text else None,
            rejected=bool(problems_text),
            spec=None,
            min_interval=interval,
            next_poll_at=now + interval * (1 - POLL_TOLERANCE),
        )
        if not task.rejected:
            self._plan(task, body, now, anchors)
        with state.lock:
            self._remember(task)
            state.counters["tasks_rejected" if task.rejected else "tasks_created"] += 1
        if self._journal is not None:
            self._journal.append(task_record(task))
        return task

    def _plan(
        self,
        task: EmulatedTask,
        body: dict[str, Any],
        now: float,
        anchors: tuple[bytes | None, bytes | None],
    ) -> None:
        state, fam = self._state, task.family
        verdict = judge(fam, body, self._assets, now)
        task.asset_ids = verdict.asset_ids
        task.spec = media_spec(
            fam, task.model, body, state.uniform(), verdict.video_seconds, anchors=anchors
        )
        if verdict.immediate_error is not None:
            task.error = verdict.immediate_error
            return
        low, high = fam.eta(task.model, task.spec.seconds)
        total = state.scaled(low + (high - low) * state.uniform())
        queued = min(total / 2, max(QUEUED_SHARE * total, 1.5 * task.min_interval))
        task.start_at = now if fam.kind == "image" else now + queued
        task.done_at = now + total
        if verdict.late_error is not None:
            task.error = verdict.late_error
            return
        task.outcome = "completed"
        task.media_token = secrets.token_hex(16)  # never from the seeded generator
        if fam.id == "vidu" and task.spec.seconds is not None:
            task.total_tokens = total_tokens(task.model, task.spec.seconds)

    def _remember(self, task: EmulatedTask) -> None:
        self._set_expiry(task)
        self._tasks[task.id] = task
        if task.media_token:
            self._by_token[task.media_token] = task.id
        for asset_id in task.asset_ids:
            self._by_asset.setdefault(asset_id, set()).add(task.id)
        while len(self._tasks) > MAX_TASKS:
            self._drop(next(iter(self._tasks)))
        if len(self._expiry) > 4 * MAX_TASKS:
            self._expiry = [(t.expires_at, t.id) for t in self._tasks.values()]
            heapq.heapify(self._expiry)

    def _set_expiry(self, task: EmulatedTask) -> None:
        state, fam = self._state, task.family
        keep = state.scaled(fam.record_retention_s or DEFAULT_RETENTION_S)
        task.expires_at = task.done_at + keep
        lifetime = fam.url_lifetime_s
        task.url_expires_at = (
            min(task.expires_at, task.done_at + state.scaled(lifetime))
            if lifetime is not None
            else task.expires_at
        )
        heapq.heappush(self._expiry, (task.expires_at, task.id))

    # -- reading ------------------------------------------------------------------------

    def get(self, task_id: str) -> EmulatedTask | None:
        """The live record (purging expired ones first)."""
        self.purge(self._state.now())
        return self._tasks.get(task_id)

    def poll(self, task_id: str, now: float) -> tuple[EmulatedTask | None, float | None]:
        """Record a result poll: (task, None) when allowed, (task, wait) when too early."""
        with self._state.lock:
            self.purge(now)
            task = self._tasks.get(task_id)
            if task is None:
                return None, None
            if now < task.next_poll_at:
                return task, task.next_poll_at - now + task.min_interval * POLL_TOLERANCE
            task.next_poll_at = now + task.min_interval * (1 - POLL_TOLERANCE)
            return task, None

    def by_token(self, token: str) -> EmulatedTask | None:
        """The task whose media token is ``token`` (None once purged or unknown)."""
        self.purge(self._state.now())
        task_id = self._by_token.get(token)
        return self._tasks.get(task_id) if task_id else None

    # -- changing -----------------------------------------------------------------------

    def fail_tasks_using(self, asset_id: str, reason: str) -> int:
        """Fail every not-yet-terminal task that references ``asset_id``; return how many."""
        state = self._state
        failed = 0
        with state.lock:
            now = state.now()
            for task_id in self._by_asset.pop(asset_id, set()):
                task = self._tasks.get(task_id)
                if task is None or task.status(now) in TERMINAL:
                    continue
                task.outcome, task.error = "failed", reason
                task.start_at, task.done_at = min(task.start_at, now), now
                if task.media_token:
                    self._by_token.pop(task.media_token, None)
                task.media_token = None
                task.cache.clear()
                self._set_expiry(task)
                if self._journal is not None:
                    self._journal.append(task_record(task))
                failed += 1
        return failed

    def purge(self, now: float) -> int:
        """Forget records whose retention has passed; return how many went."""
        heap = self._expiry
        if not heap or heap[0][0] > now:
            return 0
        gone = 0
        with self._state.lock:
            while heap and heap[0][0] <= now:
                _, task_id = heapq.heappop(heap)
                task = self._tasks.get(task_id)
                if task is not None and task.expires_at <= now:
                    self._drop(task_id)
                    gone += 1
            self._state.counters["tasks_purged"] += gone
        return gone

    def _drop(self, task_id: str) -> None:
        task = self._tasks.pop(task_id)
        if task.media_token:
            self._by_token.pop(task.media_token, None)
        self.media.forget(task_id)
        for asset_id in task.asset_ids:
            users = self._by_asset.get(asset_id)
            if users is not None:
                users.discard(task_id)
                if not users:
                    del self._by_asset[asset_id]
