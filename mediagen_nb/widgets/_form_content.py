"""Seedance 1.5's content builder and StarVideos' five modes, as form controls.

Seedance's ``content`` is built from a scenario choice (text, first frame, first+last frame,
1-4 reference images) that shows exactly the image slots the scenario allows
(``SEEDANCE_SCENARIO_SLOTS``); the prompt is the one text object. StarVideos' mode picks
which of its optional fields are shown (``STARVIDEOS_MODE_FIELDS``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets

from mediagen_nb.catalog import Param
from mediagen_nb.catalog._params import (
    SEEDANCE_MAX_REFERENCE_IMAGES,
    SEEDANCE_SCENARIO_SLOTS,
    STARVIDEOS_MODE_FIELDS,
)
from mediagen_nb.types import Problem
from mediagen_nb.widgets._form_fields import (
    AssetPicker,
    Callback,
    Field,
    labelled,
    problem_html,
)
from mediagen_nb.widgets._session import Session

SCENARIO_LABELS: dict[str, str] = {
    "text": "text to video",
    "first_frame": "first frame",
    "first_last_frame": "first + last frame",
    "reference_images": "reference images (1-4)",
}
STARVIDEOS_MODE_LABELS: dict[str, str] = {
    "text": "text to video",
    "image_reference": "image reference (1-7 images)",
    "first_last_frame": "first / last frame",
    "video_reference": "video reference (1 video)",
    "image_video": "images (1-4) + video",
}
MODE_REQUIRED: dict[str, tuple[str, ...]] = {
    "text": (),
    "image_reference": ("referenceImages",),
    "first_last_frame": ("first_image", "last_image"),
    "video_reference": ("referenceVideos",),
    "image_video": ("referenceImages", "referenceVideos"),
}
"""What each StarVideos mode needs besides model and prompt."""
_INDEX = re.compile(r"^content\[(\d+)\]")


class _Slot:
    """One image slot of the content builder: URL or asset, its role, its message."""

    def __init__(self, session: Session, role: str, callback: list[Callback]) -> None:
        self.role = role
        self.input = widgets.Text(
            placeholder="https://…",
            continuous_update=True,
            layout=widgets.Layout(width="26em"),
        )
        self.picker = AssetPicker(session, "Image", self._set)
        self.picker.input.layout.display = "none"  # content images take plain URLs only
        self.message = widgets.HTML("")
        self.label = widgets.Label(role, layout=widgets.Layout(width="11em"))
        self.box = widgets.VBox(
            [widgets.HBox([self.label, self.input, self.picker.input]), self.message]
        )
        self.box.add_class("mediagen-content-slot")
        self.input.observe(lambda _c: [cb() for cb in callback], names="value")

    def _set(self, uri: str) -> None:
        self.input.value = uri


class ContentField(Field):
    """Seedance ``content``: scenario + prompt text + the scenario's image slots."""

    def __init__(self, param: Param, session: Session) -> None:
        self._callbacks: list[Callback] = []
        self.scenario = widgets.Dropdown(
            options=[(label, key) for key, label in SCENARIO_LABELS.items()], value="text"
        )
        self.count = widgets.Dropdown(
            options=list(range(1, SEEDANCE_MAX_REFERENCE_IMAGES + 1)),
            value=1,
            description="images",
            layout=widgets.Layout(width="10em"),
        )
        self.text = widgets.Textarea(
            placeholder="What to generate (at most 500 Chinese characters or 1000 words).",
            continuous_update=True,
            layout=widgets.Layout(width="100%", height="5em"),
        )
        self.text_message = widgets.HTML("")
        roles = ["first_frame", "last_frame"] + ["reference_image"] * SEEDANCE_MAX_REFERENCE_IMAGES
        self.slots = [_Slot(session, role, self._callbacks) for role in roles]
        self.slot_box = widgets.VBox([])
        row = widgets.VBox(
            [
                labelled("scenario", widgets.HBox([self.scenario, self.count]), param.help),
                labelled("prompt", self.text),
                self.text_message,
                self.slot_box,
            ]
        )
        super().__init__("content", ["content"], row)
        for w in (self.scenario, self.count):
            w.observe(lambda _c: self._layout(), names="value")
        self._layout()

    def active_slots(self) -> list[_Slot]:
        """The image slots the chosen scenario allows, in body order."""
        scenario = self.scenario.value
        if scenario == "reference_images":
            return self.slots[2 : 2 + self.count.value]
        wanted = SEEDANCE_SCENARIO_SLOTS[scenario]
        return [slot for slot in self.slots[:2] if slot.role in wanted]

    def _layout(self) -> None:
        self.count.layout.display = None if self.scenario.value == "reference_images" else "none"
        self.slot_box.children = [slot.box for slot in self.active_slots()]
        for cb in self._callbacks:
            cb()

    def items(self) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": self.text.value}]
        for slot in self.active_slots():
            content.append(
                {
                    "type": "image_url",
                    "image_url": {"url": slot.input.value.strip()},
                    "role": slot.role,
                }
            )
        return {"content": content}

    def load(self, body: dict[str, Any]) -> None:
        content = body.get("content")
        items = content if isinstance(content, list) else []
        dicts = [i for i in items if isinstance(i, dict)]
        texts = [i.get("text", "") for i in dicts if i.get("type") == "text"]
        images = [i for i in dicts if i.get("type") == "image_url"]

        def url(item: dict[str, Any]) -> str:
            image = item.get("image_url")
            return str(image.get("url", "")) if isinstance(image, dict) else ""

        roles = [i.get("role") or "first_frame" for i in images]
        refs = [url(i) for i in images if (i.get("role") or "first_frame") == "reference_image"]
        self.text.value = str(texts[0]) if texts else ""
        for slot in self.slots:
            slot.input.value = ""
        if refs:
            self.count.value = min(max(len(refs), 1), SEEDANCE_MAX_REFERENCE_IMAGES)
            self.scenario.value = "reference_images"
            for slot, value in zip(self.slots[2:], refs, strict=False):
                slot.input.value = value
            return
        by_role = {role: url(i) for role, i in zip(roles, images, strict=True)}
        if "last_frame" in by_role:
            self.scenario.value = "first_last_frame"
        elif "first_frame" in by_role:
            self.scenario.value = "first_frame"
        else:
            self.scenario.value = "text"
        self.slots[0].input.value = by_role.get("first_frame", "")
        self.slots[1].input.value = by_role.get("last_frame", "")

    def observe(self, callback: Callback) -> None:
        self._callbacks.append(callback)
        self.text.observe(lambda _c: callback(), names="value")

    def show(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        active = self.active_slots()
        per_slot: dict[int, list[Problem]] = {i: [] for i in range(len(active))}
        text: list[Problem] = []
        rest: list[Problem] = []
        for p in problems:
            match = _INDEX.match(p.field)
            index = int(match.group(1)) if match else None
            if index == 0:
                text.append(p)
            elif index is not None and index - 1 in per_slot:
                per_slot[index - 1].append(p)
            else:
                rest.append(p)
        self.text_message.value = problem_html(text)
        for i, slot in enumerate(active):
            slot.message.value = problem_html(per_slot[i])
        self.message.value = problem_html(rest)


class ModeField(Field):
    """StarVideos' mode: which optional fields are shown (and so sent)."""

    def __init__(self) -> None:
        self.input = widgets.Dropdown(
            options=[(label, key) for key, label in STARVIDEOS_MODE_LABELS.items()], value="text"
        )
        super().__init__("mode", [], labelled("mode", self.input, "what the video is made from"))

    @property
    def shown_fields(self) -> tuple[str, ...]:
        """Optional fields of the chosen mode (besides model and prompt)."""
        return STARVIDEOS_MODE_FIELDS[self.input.value]

    def items(self) -> dict[str, Any]:
        return {}

    def missing(self, body: dict[str, Any]) -> list[Problem]:
        """Fields the chosen mode requires but ``body`` lacks (spec: the modes table)."""
        mode = self.input.value
        label = STARVIDEOS_MODE_LABELS[mode]
        return [
            Problem(name, f"is required in mode {label!r}")
            for name in MODE_REQUIRED[mode]
            if body.get(name) in (None, "", [])
        ]

    def load(self, body: dict[str, Any]) -> None:
        has = {k for k, v in body.items() if v not in (None, [], "")}
        if "referenceVideos" in has:
            mode = "image_video" if "referenceImages" in has else "video_reference"
        elif "first_image" in has or "last_image" in has:
            mode = "first_last_frame"
        elif "referenceImages" in has:
            mode = "image_reference"
        else:
            mode = "text"
        self.input.value = mode

    def observe(self, callback: Callback) -> None:
        self.input.observe(lambda _c: callback(), names="value")
