"""JupyterHub sign-in: a student's hub token names them, as JupyterHub's own ``HubAuth`` does.

``GET {JUPYTERHUB_API_URL}/user`` with ``Authorization: token <the student's token>`` gives
the user's name and groups; answers (refusals too) are cached ``CACHE_S`` under a hash of
the token, so no token is kept and a class polling results does not load the hub.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import httpx2

CACHE_S: Final = 60.0
"""How long an answer of the hub is reused (HubAuth's default ``cache_max_age`` is 300 s)."""
CACHE_SIZE: Final = 4096
HUB_TIMEOUT: Final = httpx2.Timeout(10.0, connect=5.0)
ENV_API_URL: Final = "JUPYTERHUB_API_URL"


class HubUnavailableError(Exception):
    """The hub did not answer (or answered with a server error)."""


@dataclass(frozen=True)
class HubUser:
    """Who a hub token belongs to."""

    name: str
    groups: tuple[str, ...] = ()


class HubAuth:
    """Asks the hub who a token belongs to; see the module docstring.

    Args:
        api_url: The hub's API, e.g. ``http://127.0.0.1:8081/hub/api``
            (``JUPYTERHUB_API_URL`` in a hub service's environment).
        cache_s: Seconds an answer is reused.
        transport: An ``httpx2`` transport (tests).
        clock: Replaces ``time.monotonic`` (tests).
    """

    def __init__(
        self,
        api_url: str,
        *,
        cache_s: float = CACHE_S,
        transport: httpx2.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.cache_s = cache_s
        self._transport = transport
        self._clock = clock
        self._cache: OrderedDict[str, tuple[float, HubUser | None]] = OrderedDict()
        self._http: httpx2.AsyncClient | None = None
        self.lookups = 0
        """Requests sent to the hub so far (cache misses)."""

    async def user_for_token(self, token: str) -> HubUser | None:
        """The user ``token`` belongs to, or None when the hub does not know it.

        Raises:
            HubUnavailableError: the hub did not answer, or answered with a server error.
        """
        key = hashlib.sha256(token.encode()).hexdigest()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > self._clock():
            self._cache.move_to_end(key)
            return cached[1]
        user = await self._ask(token)
        self._cache[key] = (self._clock() + self.cache_s, user)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return user

    async def _ask(self, token: str) -> HubUser | None:
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=HUB_TIMEOUT, transport=self._transport)
        self.lookups += 1
        try:
            response = await self._http.get(
                self.api_url + "/user", headers={"Authorization": f"token {token}"}
            )
        except httpx2.HTTPError as error:
            raise HubUnavailableError(f"the hub did not answer ({type(error).__name__})") from None
        if response.status_code >= 500:
            raise HubUnavailableError(f"the hub answered {response.status_code}")
        if response.status_code != 200:
            return None
        try:
            data = response.json()
        except ValueError:
            return None
        name = data.get("name") if isinstance(data, dict) else None
        if not isinstance(name, str) or not name or data.get("kind", "user") != "user":
            return None
        groups = data.get("groups") or []
        return HubUser(name, tuple(g for g in groups if isinstance(g, str)))

    async def aclose(self) -> None:
        """Close the connection to the hub."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None
