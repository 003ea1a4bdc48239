"""``validate_request(path, body)``: the plain-data front door to the request models."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from mediagen_nb.catalog._families import families, family_for_path
from mediagen_nb.types._assets import Sd2AssetStatus, Sd2AssetUpload, Seedance2AssetUpload
from mediagen_nb.types._chat import ChatCompletionRequest, MessagesRequest
from mediagen_nb.types._images import BananaRequest, Image2Request
from mediagen_nb.types._json import json_value_problems
from mediagen_nb.types._problem import (
    Problem,
    RequestModel,
    RequestValidationError,
    errors_only,
    problems_from_pydantic,
)
from mediagen_nb.types._urls import origins
from mediagen_nb.types._videos import (
    GenericVideoRequest,
    SeedanceRequest,
    SoraRequest,
    StarvideosRequest,
)

REQUEST_MODELS: dict[str, type[RequestModel]] = {
    "/v1/chat/completions": ChatCompletionRequest,
    "/v1/messages": MessagesRequest,
    "/v1/banana/images": BananaRequest,
    "/v1/image2/images": Image2Request,
    "/v1/sora/videos": SoraRequest,
    "/v1/seedance/videos": SeedanceRequest,
    "/v1/starvideos/videos": StarvideosRequest,
    "/svcVideo2/asset/upload": Seedance2AssetUpload,
    "/asset/sd2Manxue/assetUpload": Sd2AssetUpload,
    "/asset/sd2Manxue/assetStatus": Sd2AssetStatus,
}
"""Request model of every endpoint path with a documented body."""


def request_model_for(path: str) -> type[RequestModel] | None:
    """The request model for an endpoint path (generic model for partly documented families)."""
    model = REQUEST_MODELS.get(path)
    if model is None and family_for_path(path) is not None:
        return GenericVideoRequest
    return model


def validate_request(
    path: str,
    body: Any,
    *,
    allow_unknown_models: bool = False,
    service_origins: str | Iterable[str] = (),
) -> list[Problem]:
    """Check ``body`` for the endpoint ``path`` against every rule of the spec.

    A body is valid when no problem is an error; a fully clean body gives an empty list.

    Example:
        ```python
        mg.validate_request("/v1/banana/images", {"model": "nano-banana", "prompt": "x",
                                                 "resolution": "4k"})
        # [Problem(field='resolution', rule="'4k' is only available on ...")]
        ```

    Args:
        path: The endpoint path as the spec writes it (``/v1/image2/images``,
            ``/svcVideo2/asset/upload``).
        body: The JSON body.
        allow_unknown_models: Accept model names newer than the catalog (their
            model-specific limits are then not checked).
        service_origins: The service's own base URLs (or their origins): URLs on them
            count as publicly reachable.

    Returns:
        Every error and warning (``Problem.severity``), each naming the field and the rule.
    """
    model_cls = request_model_for(path)
    if model_cls is None:
        known = ", ".join(sorted(set(REQUEST_MODELS) | {f.create_path for f in families()}))
        return [Problem("path", f"unknown endpoint {path!r}; endpoints with a body: {known}")]
    if not isinstance(body, dict):
        return [Problem("(body)", "must be a JSON object")]
    family = family_for_path(path)
    rule_problems: list[Problem] = []
    context = {
        "problems": rule_problems,
        "allow_unknown_models": allow_unknown_models,
        "family_id": family.id if family else None,
        "service_origins": origins(service_origins),
    }
    json_problems = list(json_value_problems(body))
    try:
        model_cls.model_validate(body, context=context)
    except ValidationError as error:
        field_problems = problems_from_pydantic(error)
        found = field_problems + _rules_without(model_cls, body, field_problems, context)
    else:
        found = rule_problems
    if not json_problems:
        return found
    reported = {p.field for p in json_problems}
    return json_problems + [p for p in found if p.field not in reported]


def _rules_without(
    model_cls: type[RequestModel],
    body: dict[str, Any],
    field_problems: list[Problem],
    context: dict[str, Any],
) -> list[Problem]:
    """Cross-field rules of the body minus its ill-typed optional fields.

    So a user sees every problem at once, not only the type errors. Skipped when a broken
    field is required (the rules would have nothing to stand on).
    """
    broken = {p.field.split(".")[0].split("[")[0] for p in field_problems}
    required = {name for name, info in model_cls.model_fields.items() if info.is_required()}
    if broken & required or not broken <= set(body):
        return []
    rule_problems: list[Problem] = []
    trimmed = {k: v for k, v in body.items() if k not in broken}
    try:
        model_cls.model_validate(trimmed, context={**context, "problems": rule_problems})
    except ValidationError:
        return []
    reported = {p.field for p in field_problems}
    return [p for p in rule_problems if p.field not in reported]


def ensure_valid(
    path: str,
    body: Any,
    *,
    allow_unknown_models: bool = False,
    service_origins: str | Iterable[str] = (),
) -> list[Problem]:
    """Raise ``RequestValidationError`` when ``body`` has errors; return its warnings."""
    problems = validate_request(
        path, body, allow_unknown_models=allow_unknown_models, service_origins=service_origins
    )
    if errors_only(problems):
        raise RequestValidationError(problems, path)
    return problems
