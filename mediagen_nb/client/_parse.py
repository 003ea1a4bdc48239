"""Typed answers from decoded JSON: a shape the spec does not allow is a typed error.

A service (or anything in front of it) may answer 200 with JSON of the wrong shape: a
``status`` that is an object, a list where an object belongs. Pydantic's own error is not
part of the client's exception tree, so it becomes ``MalformedResponseError``.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import httpx2
from pydantic import BaseModel, ValidationError

from ._exceptions import MalformedResponseError

M = TypeVar("M", bound=BaseModel)


def first_problem(exc: ValidationError) -> str:
    """The first field pydantic refused and why (``status: Input should be ...``)."""
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "does not match"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "(answer)"
    return f"{where}: {first.get('msg', 'invalid')}"


def parse_answer(model: type[M], data: Any, response: httpx2.Response) -> M:
    """``data`` (the decoded body of ``response``) as ``model``.

    Raises:
        MalformedResponseError: ``data`` does not have the model's shape.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problem = first_problem(exc)
    try:
        excerpt = json.dumps(data)[:500]
    except (TypeError, ValueError, RecursionError):
        excerpt = ""
    raise MalformedResponseError(
        f"the answer is not a valid {model.__name__} ({problem})",
        status_code=response.status_code,
        method=response.request.method,
        path=response.request.url.path,
        body=excerpt,
    )
