"""What a classroom gateway allows, applied to the panels' model lists.

With the gateway's ``/v1/classroom/me`` answer in ``Session.classroom``, the panels offer
only the allowed models (a family with none is left out) and switch to the class's default
for their kind when the class's set of models arrives or changes.
"""

from __future__ import annotations

from typing import Any

from mediagen_nb.types import ClassroomMe


def allowed(me: ClassroomMe | None) -> frozenset[str] | None:
    """The models a class allows (None: every model, or no class)."""
    return None if me is None or me.models is None else frozenset(me.models)


def chat_groups(groups: list[dict[str, Any]], me: ClassroomMe | None) -> list[dict[str, Any]]:
    """The chat model picker's groups, only the allowed models (empty groups dropped)."""
    models = allowed(me)
    if models is None:
        return groups
    kept = [{**g, "options": [o for o in g["options"] if o["value"] in models]} for g in groups]
    return [g for g in kept if g["options"]]


def form_families(spec: dict[str, Any], me: ClassroomMe | None) -> dict[str, Any]:
    """An image or video form spec offering only the allowed models (a family without any
    left out; a family whose names the catalog does not list stays out too)."""
    models = allowed(me)
    if models is None:
        return spec
    families = []
    for fam in spec["families"]:
        options = [m for m in fam["models"] if m["value"] in models]
        if options:
            families.append({**fam, "models": options})
    return {**spec, "families": families}


def class_default(kind: str, me: ClassroomMe | None) -> str | None:
    """The model a panel of ``kind`` (``image``, ``video``, ``chat``) starts on in this class."""
    if allowed(me) is None or me is None:
        return None
    return me.default_models.get(kind)
