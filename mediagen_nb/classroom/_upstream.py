"""Where the gateway forwards to: the real service or the built-in emulator.

The key and URLs come from the teacher's environment, never from a student; with no key the
gateway starts its own emulator, journaled in the class folder. The key is written into one
header only: the ``Authorization`` of requests to the upstream's own origins.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal
from urllib.parse import urlsplit

from mediagen_nb import _env
from mediagen_nb.client._config import Secret, resolve_settings
from mediagen_nb.emulator import EmulatorHandle, start_emulator

UpstreamChoice = Literal["auto", "emulator", "service"]
SPEED_HEADER: Final = "x-mediagen-emulator-speed"
DEFAULT_EMULATOR_SPEED: Final = 30.0


@dataclass
class Upstream:
    """The service a gateway forwards to: the real one or the built-in emulator.

    ``start_classroom(upstream=...)`` takes one to forward somewhere of the teacher's
    choosing; by default it is read from the teacher's environment.

    Attributes:
        base_url: The service's base URL for images, videos and assets.
        text_base_url: Its base URL for chat completions and messages.
        api_key: The teacher's key, never shown (only the gateway sends it upstream).
        kind: ``"service"`` or ``"emulator"`` (shown to the teacher).
        speed: The emulator's time speed-up, learnt from its ``x-mediagen-emulator-speed``
            header (1 on the real service).
        emulator: The emulator this gateway started, if any (stopped with the gateway).
    """

    base_url: str
    text_base_url: str
    api_key: Secret
    kind: str = "service"
    speed: float = 1.0
    emulator: EmulatorHandle | None = field(default=None, repr=False)

    def auth_headers(self) -> dict[str, str]:
        """The only place the key is written out."""
        return {"authorization": f"Bearer {self.api_key.get_secret_value()}"}

    def origin_of(self, url: str) -> bool:
        """Whether a URL is on one of the upstream's own origins (the key may go there).

        Args:
            url: An absolute URL (a result's, say).

        Returns:
            True when its scheme and host match a base URL's.
        """
        parts = urlsplit(url)
        return any(
            (parts.scheme, parts.netloc) == urlsplit(base)[:2]
            for base in (self.base_url, self.text_base_url)
        )

    def note_speed(self, headers: Mapping[str, str]) -> None:
        """Remember the speed the upstream announces (a missing or bad value is ignored).

        Args:
            headers: A response's headers (``x-mediagen-emulator-speed``).
        """
        raw = headers.get(SPEED_HEADER)
        if raw is None:
            return
        try:
            value = float(raw)
        except ValueError:
            return
        if value > 0:
            self.speed = value

    def stop(self) -> None:
        """Stop the emulator this upstream started (if any)."""
        if self.emulator is not None:
            self.emulator.stop()


def resolve_upstream(
    choice: UpstreamChoice | Upstream,
    folder: Path,
    *,
    speed: float = DEFAULT_EMULATOR_SPEED,
    env: Mapping[str, str] | None = None,
) -> Upstream:
    """The upstream for ``choice``: ``auto`` is the service when a key is set, else the
    emulator. ValueError (naming the variable) when ``service`` lacks settings."""
    if isinstance(choice, Upstream):
        return choice
    environ = os.environ if env is None else env
    if choice not in ("auto", "emulator", "service"):
        raise ValueError(f"upstream must be 'auto', 'emulator' or 'service', not {choice!r}")
    settings = resolve_settings(env=environ)
    if choice == "emulator" or (choice == "auto" and settings.api_key is None):
        handle = start_emulator(speed=speed, state_dir=folder / "emulator")
        return Upstream(
            handle.base_url,
            handle.text_base_url,
            Secret(handle.api_key),
            kind="emulator",
            speed=handle.speed,
            emulator=handle,
        )
    if settings.api_key is None:
        raise ValueError(f"upstream 'service' needs {_env.API_KEY} in the teacher's environment")
    missing = [
        name
        for name, value in (
            (_env.BASE_URL, settings.base_url),
            (_env.TEXT_BASE_URL, settings.text_base_url),
        )
        if not value
    ]
    if missing:
        raise ValueError(f"upstream 'service' needs {' and '.join(missing)} to be set")
    return Upstream(str(settings.base_url), str(settings.text_base_url), settings.api_key)
