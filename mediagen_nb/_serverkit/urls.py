"""The URL layout both servers share: ``/api`` (``base_url``), ``/gateway`` (text), media."""

from __future__ import annotations

from typing import Final

from starlette.types import Scope

API_PREFIX: Final = "/api"
TEXT_PREFIX: Final = "/gateway"
MEDIA_PREFIX: Final = API_PREFIX + "/media/"


def server_origin(scope: Scope, configured: str | None = None) -> str:
    """The server's origin for a request: the configured one, else the address the
    connection reached (``scope["server"]``). The ``Host`` header is never used: it is the
    client's to write, so it could point result URLs anywhere."""
    if configured:
        return configured.rstrip("/")
    scheme = str(scope.get("scheme", "http"))
    name, port = scope.get("server") or ("127.0.0.1", None)
    host = f"[{name}]" if ":" in str(name) else str(name)
    if port is None or (scheme, port) in (("http", 80), ("https", 443)):
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def media_root(scope: Scope, configured: str | None = None) -> str:
    """``origin/api/media/`` for a request scope (see ``server_origin``).

    Works both inside the ``/api`` mount and in a middleware's fast path (before it).
    """
    root = scope.get("app_root_path", scope.get("root_path", ""))
    return f"{server_origin(scope, configured)}{root}{MEDIA_PREFIX}"
