"""HTTP routes of both asset libraries, relative to the ``/api`` mount.

Every answer is HTTP 200 with the envelope ``{"code", "msg", "data"}`` (``code`` ``"0"`` on
success); the choices where the spec says "not shown" are in ``docs/reference/design.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mediagen_nb._serverkit.errors import JSON_KEY, JSON_TYPE, dumps
from mediagen_nb._serverkit.urls import server_origin
from mediagen_nb.emulator._assets import AssetStore
from mediagen_nb.emulator._state import EmulatorState
from mediagen_nb.types import validate_request

SEEDANCE2_UPLOAD: Final = "/svcVideo2/asset/upload"
SEEDANCE2_ITEM: Final = "/svcVideo2/asset/{assetId}"
SD2_UPLOAD: Final = "/asset/sd2Manxue/assetUpload"
SD2_STATUS: Final = "/asset/sd2Manxue/assetStatus"
SD2_LISTS: Final = {"imageUrls": "Image", "videoUrls": "Video", "audioUrls": "Audio"}
_LIST_ITEM = re.compile(r"^(imageUrls|videoUrls|audioUrls)\[(\d+)\]$")


def envelope(code: str, msg: str | None, data: Any) -> Response:
    """The asset-library envelope as a response (always HTTP 200)."""
    return Response(dumps({"code": code, "msg": msg, "data": data}), media_type=JSON_TYPE)


def _service_origins(request: Request, state: EmulatorState) -> tuple[str, ...]:
    """The emulator's own origins: as configured and as the connection reached it (never the
    ``Host`` header, which would let a client declare any address "own")."""
    return tuple(
        dict.fromkeys(
            (server_origin(request.scope, state.public_origin), server_origin(request.scope))
        )
    )


def _errors(request: Request, state: EmulatorState, path: str, body: Any) -> list[tuple[str, str]]:
    problems = validate_request(path, body, service_origins=_service_origins(request, state))
    return [(p.field, p.rule) for p in problems if p.is_error]


def _message(errors: list[tuple[str, str]]) -> str:
    return "; ".join(f"{field}: {rule}" for field, rule in errors)


def _sd2_failed_items(errors: list[tuple[str, str]], body: Any) -> list[dict[str, Any]]:
    """sd2's ``failedItems`` for the refused URLs (errors on ``imageUrls[i]`` and the like)."""
    failed = []
    for field, rule in errors:
        match = _LIST_ITEM.match(field)
        if match and isinstance(body, dict):
            value = body[match[1]][int(match[2])]
            url = value if isinstance(value, str) else None
            failed.append({"url": url, "assetType": SD2_LISTS[match[1]], "reason": rule})
    return failed


def _sd2_store(store: AssetStore, body: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """Store each URL of an sd2 upload; yields (asset type, URL, new asset id)."""
    for key, asset_type in SD2_LISTS.items():
        for url in body.get(key) or ():
            yield asset_type, url, store.upload("sd2", asset_type, url, None).id


def _sd2_statuses(
    store: AssetStore, asset_ids: list[str], now: float
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(items, failedItems) of an sd2 status query: unknown or other-library ids fail."""
    items: list[dict[str, Any]] = []
    failed_items: list[dict[str, Any]] = []
    for asset_id in dict.fromkeys(asset_ids):
        asset = store.get(asset_id)
        if asset is None or asset.library != "sd2":
            failed_items.append({"assetId": asset_id, "reason": store.missing_reason(asset_id)})
        else:
            items.append({"assetId": asset_id, "status": asset.status(now)})
    return items, failed_items


def asset_routes(state: EmulatorState) -> list[BaseRoute]:
    """Routes of the seedance 2.0 and sd2 asset libraries."""
    store = state.assets

    async def seedance2_upload(request: Request) -> Response:
        body: Any = request.scope.get(JSON_KEY)
        errors = _errors(request, state, SEEDANCE2_UPLOAD, body)
        if errors:
            return envelope("400", _message(errors), None)
        name = body.get("name")
        asset = store.upload("seedance2", body["assetType"], body["url"], name)
        return envelope("0", "success", {"assetId": asset.id})

    async def seedance2_item(request: Request) -> Response:
        asset_id: str = request.path_params["assetId"]
        asset = store.get(asset_id)
        if asset is None or asset.library != "seedance2":
            return envelope("404", store.missing_reason(asset_id), None)
        if request.method == "DELETE":
            store.delete(asset_id)
            return envelope("0", f"asset {asset_id} deleted", None)
        data = {
            "assetId": asset.id,
            "name": asset.name,
            "assetType": asset.asset_type,
            "status": asset.status(state.now()),
            "url": asset.url,
            "createTime": asset.create_time(),
        }
        return envelope("0", "success", data)

    async def sd2_upload(request: Request) -> Response:
        body: Any = request.scope.get(JSON_KEY)
        errors = _errors(request, state, SD2_UPLOAD, body)
        if errors:
            failed = _sd2_failed_items(errors, body)
            return envelope("400", _message(errors), {"items": [], "failedItems": failed})
        items = [
            {
                "assetType": asset_type,
                "originalUrl": url,
                "assetId": asset_id,
                "status": "submitted",
            }
            for asset_type, url, asset_id in _sd2_store(store, body)
        ]
        return envelope("0", "success", {"items": items, "failedItems": []})

    async def sd2_status(request: Request) -> Response:
        body: Any = request.scope.get(JSON_KEY)
        errors = _errors(request, state, SD2_STATUS, body)
        if errors:
            return envelope("400", _message(errors), None)
        items, failed_items = _sd2_statuses(store, body["assetIds"], state.now())
        return envelope("0", "success", {"items": items, "failedItems": failed_items})

    return [
        Route(SEEDANCE2_UPLOAD, seedance2_upload, methods=["POST"]),
        Route(SEEDANCE2_ITEM, seedance2_item, methods=["GET", "DELETE"]),
        Route(SD2_UPLOAD, sd2_upload, methods=["POST"]),
        Route(SD2_STATUS, sd2_status, methods=["POST"]),
    ]


ASSET_POST_PATHS: Final = (SEEDANCE2_UPLOAD, SD2_UPLOAD, SD2_STATUS)
"""Asset paths that take a JSON body (relative to ``/api``)."""
