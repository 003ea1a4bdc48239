"""The handle's moderation methods: prompt rules, approval, refusals and chat turns."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._wall import wall_item


class ModerationControls:
    """What ``ClassroomHandle`` offers for moderation (it supplies ``state``)."""

    @property
    def state(self) -> ClassState:
        """The class's state."""
        raise NotImplementedError

    @property
    def blocked(self) -> tuple[str, ...]:
        """The prompt rules in force (words, phrases and ``re:`` patterns)."""
        return self.state.moderation.blocked

    def set_blocked(self, rules: Iterable[str]) -> None:
        """Replace the prompt rules (applies to the next request).

        Args:
            rules: words or phrases (whole words, any case) and ``re:PATTERN`` rules.

        Raises:
            ValueError: a rule is too long, a pattern does not compile, or too many rules.
        """
        self.state.set_moderation(self.state.moderation.updated(tuple(rules), None))

    @property
    def approval(self) -> bool:
        """Whether the wall shows only items the teacher approved."""
        return self.state.moderation.approve

    def set_approval(self, on: bool) -> None:
        """Turn approval before the wall on or off.

        Turning it on keeps what the wall shows now: those items count as approved.

        Args:
            on: True: the wall shows only items the teacher approved.
        """
        self.state.set_moderation(self.state.moderation.updated(None, bool(on)))

    def queue(self) -> list[dict[str, Any]]:
        """Items waiting for approval, oldest first (empty unless approval is on)."""
        return [wall_item(t, waiting=True) for t in self.state.waiting()]

    def approve(self, task_id: str) -> None:
        """Approve an item for the wall (it is shown again if it was hidden).

        Args:
            task_id: The item's ``id``.

        Raises:
            KeyError: The class has no task with that id.
        """
        self.state.approve(task_id)

    def refusals(self) -> list[dict[str, Any]]:
        """Prompts the class's rules refused, newest first: student, where, prompt
        excerpt, rule, time."""
        return list(self.state.moderation.refusals)

    def chats(self, student: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Students' chat turns, newest first: student, model, prompt, answer excerpt,
        tokens, outcome.

        Args:
            student: one student's turns (None: everyone's).
            limit: at most this many turns.

        Returns:
            One dict per turn.
        """
        return [t.as_dict() for t in self.state.ledger.chat_turns(student, limit)]
