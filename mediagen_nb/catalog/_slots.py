"""Where each family takes reference media: its media slots, derived from the parameter tables.

A slot is one request field (or seedance content role) taking a picture or a video as a
``first_frame``, ``last_frame`` or ``reference``. The client's input checks and the Studio's
card actions read these, so no code outside the catalog names a family to place a picture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from mediagen_nb.catalog._families import FAMILIES
from mediagen_nb.catalog._params import SEEDANCE_MAX_REFERENCE_IMAGES, Param, SeedanceRole, options
from mediagen_nb.catalog._registry import params_for

SlotRole = Literal["first_frame", "last_frame", "reference"]
SlotMedia = Literal["image", "video", "audio"]

_ROLE_BY_NAME: dict[str, SlotRole] = {
    "first_image": "first_frame",
    "first_frame": "first_frame",
    "last_image": "last_frame",
    "last_frame": "last_frame",
}
_MEDIA_BY_NAME: dict[str, SlotMedia] = {"referenceVideos": "video", "referenceAudios": "audio"}
_PARTNER: dict[str, str] = {"first_image": "last_image", "last_image": "first_image"}
"""Fields the spec only accepts together (starvideos: first_image needs last_image)."""


@dataclass(frozen=True)
class MediaSlot:
    """One place of a create request that takes reference media."""

    family: str
    field: str
    """The request field (``first_image``), or ``content`` for seedance content items."""
    role: SlotRole
    media: SlotMedia
    max_items: int | None
    """None: one URL (a string field); else a list of at most this many (0: no bound)."""
    content_role: str | None = None
    """The seedance content ``role`` (``first_frame`` / ``last_frame`` / ``reference_image``)."""
    partner: str | None = None
    """A field that must be set together with this one (starvideos' frame anchors)."""

    @property
    def label(self) -> str:
        """How the user sees the slot: the field, or the seedance content role."""
        return self.content_role or self.field

    @property
    def path(self) -> str:
        """The JSON path a first value in this slot has (``image_urls[0]``, ``content[1]...``)."""
        if self.field == "content":
            return "content[1].image_url.url"
        return self.field if self.max_items is None else f"{self.field}[0]"

    def put(self, body: dict[str, Any], url: str) -> dict[str, Any]:
        """A copy of ``body`` with ``url`` in this slot (a list slot appends, keeping its
        bound; a field the spec makes exclusive with it is dropped; a seedance image
        replaces the images of a scenario it cannot be mixed with)."""
        out = dict(body)
        if self.field == "content":
            return self._put_content(out, url)
        for param in params_for(self.family):
            if param.name == self.field and param.exclusive_with:
                out.pop(param.exclusive_with, None)
        if self.max_items is None:
            out[self.field] = url
            return out
        kept = [u for u in out.get(self.field) or [] if u != url]
        bound = self.max_items or len(kept) + 1
        out[self.field] = [*kept, url][-bound:]
        return out

    def _put_content(self, body: dict[str, Any], url: str) -> dict[str, Any]:
        frames = self.role in ("first_frame", "last_frame")

        def keep(item: Any) -> bool:
            if not isinstance(item, dict) or item.get("type") != "image_url":
                return True
            role = item.get("role") or "first_frame"
            if self.role == "reference":
                return role == "reference_image"
            return frames and role in ("first_frame", "last_frame") and role != self.content_role

        items = [item for item in body.get("content") or [] if keep(item)]
        new = {"type": "image_url", "image_url": {"url": url}, "role": self.content_role}
        body["content"] = [*items, new]
        return body


def _param_slot(family_id: str, param: Param) -> MediaSlot | None:
    if param.type not in ("url", "url_list"):
        return None
    role = _ROLE_BY_NAME.get(param.name, "reference")
    many = None if param.type == "url" else (param.max_items or 0)
    return MediaSlot(
        family=family_id,
        field=param.name,
        role=role,
        media=_MEDIA_BY_NAME.get(param.name, "image"),
        max_items=many,
        partner=_PARTNER.get(param.name),
    )


def _content_slots(family_id: str) -> list[MediaSlot]:
    slots = []
    for content_role in options(SeedanceRole):
        role = _ROLE_BY_NAME.get(content_role, "reference")
        many = SEEDANCE_MAX_REFERENCE_IMAGES if role == "reference" else None
        slots.append(MediaSlot(family_id, "content", role, "image", many, content_role))
    return slots


def media_slots(family_id: str) -> tuple[MediaSlot, ...]:
    """Every slot of a family that takes reference media, in parameter order."""
    found: list[MediaSlot] = []
    for param in params_for(family_id):
        if param.type == "content":
            found += _content_slots(family_id)
            continue
        slot = _param_slot(family_id, param)
        if slot is not None:
            found.append(slot)
    return tuple(found)


def slots_for(role: SlotRole, media: SlotMedia = "image") -> tuple[MediaSlot, ...]:
    """Every family's first slot of one role and media kind (sora's ``image_urls`` is only
    another name of its ``input_reference``)."""
    out: list[MediaSlot] = []
    for family_id in FAMILIES:
        found = [s for s in media_slots(family_id) if s.role == role and s.media == media]
        out += found[:1]
    return tuple(out)


def slot_of(family_id: str, field_path: str) -> MediaSlot | None:
    """The slot a request JSON path (``first_image``, ``image_urls[0]``) belongs to.

    Seedance content paths (``content[1].image_url.url``) resolve to the ``content`` slot of
    the first_frame role; the role itself lives in the item, so callers needing it read it.
    """
    name = field_path.split("[", 1)[0].split(".", 1)[0]
    for slot in media_slots(family_id):
        if slot.field == name:
            return slot
    return None
