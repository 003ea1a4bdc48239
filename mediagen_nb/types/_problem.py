"""Problems found in a request body, and the machinery shared by every request model.

A ``Problem`` names the field as a JSON path (``content[1].role``) and the rule in plain
words. Request models check field types with pydantic (strict: JSON types are not coerced)
and the spec's cross-field rules in ``rules()``; ``validate_request`` collects both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

from mediagen_nb.catalog._families import family_for_model
from mediagen_nb.catalog._text import text_model

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong (``error``) or worth knowing (``warning``) about a request body.

    Attributes:
        field: JSON path of the field, e.g. ``resolution`` or ``content[1].image_url.url``.
        rule: The rule, in plain words.
        severity: ``error`` stops the request; a ``warning`` does not.
    """

    field: str
    """JSON path of the field, e.g. ``resolution`` or ``content[1].image_url.url``."""
    rule: str
    """The rule, in plain words."""
    severity: Severity = "error"

    @property
    def is_error(self) -> bool:
        """True for problems that stop the request; warnings do not."""
        return self.severity == "error"

    def __str__(self) -> str:
        return f"{self.field}: {self.rule}" if self.field else self.rule


class RequestValidationError(ValueError):
    """A request body breaks the spec's rules; raised before anything is sent.

    Args:
        problems: What is wrong; only the errors are kept (``problems``), warnings dropped.
        path: The endpoint's path, named in the message when given.
    """

    def __init__(self, problems: Sequence[Problem], path: str | None = None) -> None:
        self.problems: tuple[Problem, ...] = tuple(p for p in problems if p.is_error)
        self.path = path
        where = f" for {path}" if path else ""
        lines = "; ".join(str(p) for p in self.problems)
        super().__init__(f"invalid request{where}: {lines}")


@dataclass(frozen=True)
class RuleContext:
    """Options that change how strictly rules apply."""

    allow_unknown_models: bool = False
    family_id: str | None = None
    """The family whose create endpoint the body is for (generic video requests need it)."""
    service_origins: frozenset[str] = frozenset()
    """Origins of the service itself (``scheme://host:port``): its URLs count as public."""


def errors_only(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that stop a request."""
    return [p for p in problems if p.is_error]


def json_path(loc: Iterable[int | str]) -> str:
    """``('content', 1, 'role')`` -> ``content[1].role``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_PLAIN: dict[str, str] = {
    "missing": "is required",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "finite_number": "must be a finite number (NaN and Infinity are not valid JSON)",
    "bool_type": "must be true or false",
    "list_type": "must be a list (JSON array)",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
}


def problems_from_pydantic(error: ValidationError) -> list[Problem]:
    """Turn pydantic's field errors into plain-words problems."""
    problems: list[Problem] = []
    for item in error.errors(include_url=False):
        kind = item["type"]
        ctx = item.get("ctx") or {}
        if kind == "spec_rule":
            continue  # raised by rules(); callers collect those separately
        if kind == "literal_error":
            rule = f"must be one of {ctx.get('expected', '')}"
        elif kind in _PLAIN:
            rule = _PLAIN[kind]
        else:
            rule = str(item["msg"])
            rule = rule[0].lower() + rule[1:] if rule else rule
        field = json_path(item["loc"]) or "(body)"
        problems.append(Problem(field, rule))
    return problems


class RequestModel(BaseModel):
    """Base of every request model: strict JSON types plus the spec's rules in ``rules()``.

    Unknown fields are kept (the service may accept more than the spec shows); documented
    families report them as warnings.
    """

    model_config = ConfigDict(
        defer_build=True,
        strict=True,
        extra="allow",
        populate_by_name=True,
        allow_inf_nan=False,
    )

    #: Fields documented by the spec beyond the declared ones (none by default).
    _documented_extra: frozenset[str] = frozenset()
    #: Whether unknown top-level fields deserve a warning.
    _warn_unknown_fields: bool = True

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        """Cross-field rules of the spec; override in subclasses."""
        return iter(())

    def unknown_field_warnings(self, family_title: str) -> Iterator[Problem]:
        """Warn about fields the spec does not document for this endpoint."""
        if not self._warn_unknown_fields:
            return
        for name in sorted(self.model_extra or {}):
            if name not in self._documented_extra:
                yield Problem(
                    name,
                    f"is not a documented parameter of {family_title}; the service may ignore it",
                    "warning",
                )

    @model_validator(mode="after")
    def _apply_rules(self, info: ValidationInfo) -> Self:
        context = info.context if isinstance(info.context, dict) else {}
        family_id = context.get("family_id")
        service_origins = context.get("service_origins")
        ctx = RuleContext(
            allow_unknown_models=bool(context.get("allow_unknown_models")),
            family_id=family_id if isinstance(family_id, str) else None,
            service_origins=service_origins
            if isinstance(service_origins, frozenset)
            else frozenset(),
        )
        problems = list(self.rules(ctx))
        sink = context.get("problems")
        if isinstance(sink, list):
            sink.extend(problems)
            return self
        errors = errors_only(problems)
        if errors:
            text = "; ".join(str(p) for p in errors)
            raise PydanticCustomError("spec_rule", "{problems}", {"problems": text})
        return self


_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)
_ASSET = re.compile(r"^asset://[A-Za-z0-9._:-]+$")


def is_url(value: str) -> bool:
    """A plausible absolute http(s) URL."""
    return bool(_URL.match(value))


def is_asset_uri(value: str) -> bool:
    """``asset://{assetId}`` with a non-empty id of safe characters."""
    return bool(_ASSET.match(value))


def check_reference(value: Any, field: str, *, allow_asset: bool = True) -> Iterator[Problem]:
    """A reference input must be an http(s) URL (or ``asset://id`` where assets are allowed)."""
    if not isinstance(value, str):
        yield Problem(field, "must be a string")
    elif allow_asset and value.startswith("asset://"):
        if not is_asset_uri(value):
            yield Problem(field, "must be asset://{assetId} with a non-empty id")
    elif not is_url(value):
        what = "an http(s) URL or asset://{assetId}" if allow_asset else "an http(s) URL"
        yield Problem(field, f"must be {what}")


def check_references(
    values: Sequence[Any] | None,
    field: str,
    *,
    max_items: int | None = None,
    allow_asset: bool = True,
    limit_reason: str = "",
) -> Iterator[Problem]:
    """Each item is a reference; at most ``max_items`` of them."""
    if values is None:
        return
    if max_items is not None and len(values) > max_items:
        reason = f" {limit_reason}" if limit_reason else ""
        yield Problem(field, f"takes at most {max_items} item(s){reason}, got {len(values)}")
    for index, value in enumerate(values):
        yield from check_reference(value, f"{field}[{index}]", allow_asset=allow_asset)


def _owner_of(model: str, family_id: str | None) -> tuple[str, str] | None:
    """(owner, path) of a name the catalog knows for another family or for the text endpoints."""
    owner = family_for_model(model)
    if owner is not None and owner.id != family_id:
        return owner.title, owner.create_path
    if owner is None and text_model(model) is not None:
        return "the text models", "/v1/chat/completions or /v1/messages"
    return None


def check_model(
    model: str,
    known: Sequence[str],
    title: str,
    ctx: RuleContext,
    *,
    family_id: str | None = None,
    partly_documented: bool = False,
) -> Iterator[Problem]:
    """The model name must belong to this family.

    One rule for every family (decision; the spec lists names per family, and for the partly
    documented ones only "names seen"): a name the catalog knows for another family (or for
    the text endpoints) is an error on this path, even with ``allow_unknown_models``. A name
    the catalog does not know at all is an error on a documented family (its table is the
    full list) unless ``allow_unknown_models``; on a partly documented family it passes with
    a warning, since the spec does not list its models (veo, grok, ...) or lists only the
    names seen in result queries (vidu, sd2 manxue).
    """
    if not model.strip():
        yield Problem("model", "must not be empty")
        return
    if model in known:
        return
    owner = _owner_of(model, family_id)
    if owner is not None:
        yield Problem(
            "model", f"{model!r} belongs to {owner[0]}, not to {title}; send it to {owner[1]}"
        )
    elif ctx.allow_unknown_models:
        return
    elif partly_documented:
        if known:
            rule = f"is not a {title} name this catalog knows (seen: {', '.join(known)})"
        else:
            rule = f"is sent as is: the spec lists no {title} model names"
        yield Problem("model", f"{rule}; the service may refuse it", "warning")
    elif known:
        names = ", ".join(known)
        yield Problem(
            "model",
            f"unknown {title} model {model!r}; known: {names} "
            "(pass allow_unknown_models=True for models newer than this catalog)",
        )


def check_prompt(prompt: str, field: str = "prompt") -> Iterator[Problem]:
    """A prompt must say something."""
    if not prompt.strip():
        yield Problem(field, "must not be empty")
