"""Which controls a family's form gets: one per parameter, exclusive pairs merged.

StarVideos also gets its mode picker; partly documented families get only the reference
inputs their family accepts (``Family.reference_fields``).
"""

from __future__ import annotations

from typing import Any

from mediagen_nb.catalog import Family, Param, params_for
from mediagen_nb.widgets._form_content import ContentField, ModeField
from mediagen_nb.widgets._form_fields import (
    BoolField,
    EnumField,
    Field,
    IntField,
    PairField,
    RefField,
    RefListField,
    TextField,
)
from mediagen_nb.widgets._session import Session

PAIR_LABELS = {"size": "orientation", "duration": "duration", "input_reference": "reference"}


def _make_field(param: Param, session: Session) -> Field:
    if param.type == "enum":
        return EnumField(param)
    if param.type == "int":
        return IntField(param)
    if param.type == "bool":
        return BoolField(param)
    if param.type == "url":
        return RefField(param, session)
    if param.type == "url_list":
        return RefListField(param, session)
    if param.type == "content":
        return ContentField(param, session)
    return TextField(param, multiline=param.type == "text", placeholder=param.help)


def build_fields(fam: Family, session: Session) -> list[Field]:
    """The controls of a family, with mutually exclusive pairs merged into one control."""
    params = {p.name: p for p in params_for(fam.id)}
    if not fam.documented:
        params = {
            n: p
            for n, p in params.items()
            if p.type not in ("url", "url_list") or n in fam.reference_fields
        }
    fields: list[Field] = [ModeField()] if fam.id == "starvideos" else []
    done: set[str] = set()
    for name, param in params.items():
        if name in done:
            continue
        partner = params.get(param.exclusive_with or "")
        if partner is not None:
            first, second = _make_field(param, session), _make_field(partner, session)
            fields.append(PairField(PAIR_LABELS.get(name, name), first, second))
            done.add(partner.name)
        else:
            fields.append(_make_field(param, session))
    return fields


def leaf_enums(fields: list[Field]) -> list[EnumField]:
    out: list[EnumField] = []
    for f in fields:
        if isinstance(f, PairField) and isinstance(f.active, EnumField):
            out.append(f.active)
        elif isinstance(f, EnumField):
            out.append(f)
    return out


def pickers(f: Field) -> list[Any]:
    if isinstance(f, PairField):
        return [p for half in f.fields for p in pickers(half)]
    if isinstance(f, ContentField):
        return [slot.picker for slot in f.slots]
    picker = getattr(f, "picker", None)
    return [picker] if picker is not None else []
