"""The class's rules: which models, how much each student (and the class) may use, pause.

Every check returns the sentence a student reads when refused ("your class allows 5 videos
each; you have used 5"), or None. The checks run before anything is sent upstream, so a
refused request costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Literal

Kind = Literal["image", "video"]
MODEL_SHOWN: Final = 100
"""A refusal shows at most this many characters of an unknown model's name."""


def _count(n: int, word: str) -> str:
    """``1 video``, ``5 videos``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@dataclass(frozen=True)
class Limits:
    """Caps on what one student (or, as ``Rules.class_limits``, the whole class) may use.

    Example: ``Limits(images=10, videos=2, concurrent=3)`` lets each student make ten
    pictures and two videos, at most three running at once.

    Attributes:
        images: Image tasks a student may create during the class (None: no cap).
        videos: Video tasks a student may create during the class (None: no cap).
        concurrent: Image and video tasks in flight at once (None: no cap).
        chat_tokens: Chat tokens (prompt plus reply) a student may use (None: no cap).

    Raises:
        ValueError: A limit is not a whole number >= 0 (or None).
    """

    images: int | None = None
    videos: int | None = None
    concurrent: int | None = None
    chat_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("images", "videos", "concurrent", "chat_tokens"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(f"limit {name} must be a whole number >= 0 or None, not {value!r}")


@dataclass(frozen=True)
class Usage:
    """What a student (or the class) has used so far, counting what running requests hold.

    Attributes:
        images: Image tasks created (a create the service rejected at once does not count).
        videos: Video tasks created.
        in_flight: Image and video tasks still running.
        chat_tokens: Chat tokens used (the service's own figures, else an estimate of about
            four characters per token) plus what chats still running hold.
    """

    images: int = 0
    videos: int = 0
    in_flight: int = 0
    chat_tokens: int = 0

    def of(self, kind: Kind) -> int:
        """Tasks made of one kind.

        Args:
            kind: ``"image"`` or ``"video"``.

        Returns:
            The number of tasks of that kind.
        """
        return self.images if kind == "image" else self.videos


@dataclass(frozen=True)
class Rules:
    """Everything the gateway checks before it forwards a request.

    A refused request never reaches the service, so it costs nothing; the student reads a
    sentence saying which rule refused it.

    Example: ``Rules(models=frozenset({"banana"}), limits=Limits(images=5))``.

    Attributes:
        models: Model names students may use (None: every model).
        limits: Each student's limits, unless ``per_student`` or ``per_group`` says
            otherwise.
        per_student: Limits for named students (names compared case-insensitively).
        per_group: Limits for members of JupyterHub groups, in order: a student in several
            listed groups gets the first one's
            (``--group-limits teachers=unlimited,class-7b=images:5``).
        class_limits: Caps on the whole class's use (``concurrent`` counts every student's
            tasks).
        paused: The teacher paused the class: new tasks, chats and uploads are refused.
        chat_reserve: Tokens a running chat holds for its reply when it names no
            ``max_tokens``.

    Raises:
        ValueError: ``chat_reserve`` is not a whole number >= 1.
    """

    models: frozenset[str] | None = None
    limits: Limits = field(default_factory=Limits)
    per_student: dict[str, Limits] = field(default_factory=dict)
    per_group: dict[str, Limits] = field(default_factory=dict)
    class_limits: Limits = field(default_factory=Limits)
    paused: bool = False
    chat_reserve: int = 1024

    def __post_init__(self) -> None:
        reserve = self.chat_reserve
        if isinstance(reserve, bool) or not isinstance(reserve, int) or reserve < 1:
            raise ValueError(f"chat_reserve must be a whole number >= 1, not {reserve!r}")

    def with_models(self, models: Iterable[str] | None) -> Rules:
        """A copy of these rules with another model allow-list.

        Args:
            models: The model names students may use (None: every model).

        Returns:
            The new rules (these stay as they are).
        """
        return replace(self, models=None if models is None else frozenset(models))

    def limits_for(self, student: str, groups: Sequence[str] = ()) -> Limits:
        """The limits that apply to one student.

        Args:
            student: The student's name (compared case-insensitively).
            groups: The student's JupyterHub groups.

        Returns:
            The student's own limits, else those of the first listed group they belong to,
            else the class default (``limits``).
        """
        folded = {name.casefold(): lim for name, lim in self.per_student.items()}
        own = folded.get(student.casefold())
        if own is not None:
            return own
        member = set(groups)
        for group, limits in self.per_group.items():
            if group in member:
                return limits
        return self.limits


def paused_refusal(rules: Rules) -> str | None:
    """Refusal while the teacher has paused the class."""
    if rules.paused:
        return "your teacher has paused the class for now; try again when it resumes"
    return None


def model_refusal(rules: Rules, model: object) -> str | None:
    """Refusal for a model outside the allow-list."""
    if rules.models is None:
        return None
    if isinstance(model, str) and model in rules.models:
        return None
    allowed = ", ".join(sorted(rules.models)) or "none"
    shown = model if isinstance(model, str) else "(no model)"
    if len(shown) > MODEL_SHOWN:
        shown = shown[: MODEL_SHOWN - 1] + "…"
    return f"your class does not use the model {shown}; you may use: {allowed}"


def task_refusal(
    rules: Rules,
    student: str,
    kind: Kind,
    mine: Usage,
    everyone: Usage,
    *,
    groups: Sequence[str] = (),
) -> str | None:
    """Refusal for a new image or video task, or None."""
    own = rules.limits_for(student, groups)
    cap = own.images if kind == "image" else own.videos
    if cap is not None and mine.of(kind) >= cap:
        return f"your class allows {_count(cap, kind)} each; you have used {mine.of(kind)}"
    if own.concurrent is not None and mine.in_flight >= own.concurrent:
        return (
            f"your class allows {_count(own.concurrent, 'task')} at a time each; wait until "
            f"one of your running tasks finishes ({mine.in_flight} running)"
        )
    whole = rules.class_limits
    class_cap = whole.images if kind == "image" else whole.videos
    if class_cap is not None and everyone.of(kind) >= class_cap:
        return f"the class has used all {_count(class_cap, kind)} it may make together"
    if whole.concurrent is not None and everyone.in_flight >= whole.concurrent:
        return f"the class is running {everyone.in_flight} tasks, its limit; try again in a moment"
    return None


def chat_refusal(
    rules: Rules, student: str, mine: Usage, everyone: Usage, *, groups: Sequence[str] = ()
) -> str | None:
    """Refusal for a new chat request, or None."""
    cap = rules.limits_for(student, groups).chat_tokens
    if cap is not None and mine.chat_tokens >= cap:
        allowed = _count(cap, "chat token")
        return f"your class allows {allowed} each; you have used {mine.chat_tokens}"
    class_cap = rules.class_limits.chat_tokens
    if class_cap is not None and everyone.chat_tokens >= class_cap:
        return f"the class has used all {_count(class_cap, 'chat token')} it may use together"
    return None


LIMIT_NAMES: Final = ("images", "videos", "concurrent", "chat_tokens")
UNLIMITED: Final = "unlimited"


def parse_group_limits(text: str) -> dict[str, Limits]:
    """``--group-limits``: ``GROUP=unlimited`` or ``GROUP=NAME:N`` entries, comma-separated;
    a ``NAME:N`` without ``=`` adds to the group before it
    (``teachers=unlimited,class-7b=images:5,chat_tokens:2000``). NAME is one of
    ``images``, ``videos``, ``concurrent``, ``chat_tokens``; the order of groups is kept.

    Raises:
        ValueError: naming the entry and what it should look like.
    """
    groups: dict[str, dict[str, int]] = {}
    current: str | None = None
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            continue
        if "=" in entry:
            current, _, spec = (part.strip() for part in entry.partition("="))
            if not current:
                raise ValueError(f"--group-limits: {entry!r} names no group before '='")
            groups[current] = {}
            if spec.lower() == UNLIMITED:
                continue
            entry = spec
        if current is None:
            raise ValueError(f"--group-limits: {entry!r} comes before any GROUP=")
        name, _, number = (part.strip() for part in entry.partition(":"))
        name = name.replace("-", "_")
        if name not in LIMIT_NAMES or not number.isdigit():
            raise ValueError(
                f"--group-limits: {entry!r} is not a limit; write NAME:N with NAME one of "
                f"{', '.join(LIMIT_NAMES)} (or GROUP={UNLIMITED})"
            )
        groups[current][name] = int(number)
    return {group: Limits(**caps) for group, caps in groups.items()}
