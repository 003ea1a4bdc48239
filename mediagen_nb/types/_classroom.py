"""The classroom gateway's ``GET /v1/classroom/me`` answer: what a student may still do."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mediagen_nb.types._responses_base import Response

LimitName = Literal["images", "videos", "concurrent", "chat_tokens"]


class ClassroomAmounts(Response):
    """One number per limit (None: no cap, where the number is a limit or what is left)."""

    images: int | None = None
    videos: int | None = None
    concurrent: int | None = None
    """Image and video tasks at once (in ``used``: running now)."""
    chat_tokens: int | None = None


class ClassroomMe(Response):
    """A student's view of their class.

    ``used`` counts what running requests hold too (as the gateway's budget check does);
    ``left`` is the smaller of the student's and the class's room (None: no cap).
    """

    student: str
    groups: list[str] = Field(default_factory=list)
    models: list[str] | None = None
    """Models the class allows (None: every model)."""
    default_models: dict[str, str | None] = Field(default_factory=dict)
    """The model each kind (``image``, ``video``, ``chat``) starts on; None: no preference."""
    limits: ClassroomAmounts = Field(default_factory=ClassroomAmounts)
    used: ClassroomAmounts = Field(default_factory=ClassroomAmounts)
    left: ClassroomAmounts = Field(default_factory=ClassroomAmounts)
    paused: bool = False

    def allows(self, model: str) -> bool:
        """Whether the class lets this student use a model.

        Args:
            model: A model name.

        Returns:
            True when the class names no models, or names this one.
        """
        return self.models is None or model in self.models

    def fits(self, images: int = 0, videos: int = 0) -> bool:
        """Whether more tasks fit the student's budget.

        Args:
            images: Image tasks about to be created.
            videos: Video tasks about to be created.

        Returns:
            False when the class is paused or either count exceeds what is left (an
            uncapped kind always fits).
        """
        room = ((images, self.left.images), (videos, self.left.videos))
        return not self.paused and all(left is None or wanted <= left for wanted, left in room)

    def left_text(self) -> str:
        """``2 of 5 images left · 1,200 chat tokens left`` (only what has a cap)."""
        parts = []
        for name, word in (("images", "images"), ("videos", "videos")):
            cap, left = getattr(self.limits, name), getattr(self.left, name)
            if left is not None:
                shown = f"{left:,} of {cap:,}" if cap is not None else f"{left:,}"
                parts.append(f"{shown} {word} left")
        if self.left.chat_tokens is not None:
            parts.append(f"{self.left.chat_tokens:,} chat tokens left")
        if self.paused:
            parts.insert(0, "class paused")
        return " · ".join(parts)
