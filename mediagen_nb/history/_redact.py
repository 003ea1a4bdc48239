"""Defensive scrubbing of secrets before anything reaches the history database.

Entries named like a credential are dropped (not masked: not even the key's length is
kept), ``Bearer <token>`` strings masked, and the value of ``MEDIAGEN_API_KEY`` replaced.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from mediagen_nb import _env

REDACTED = "[redacted]"

_SECRET_NAMES = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "api_key",
        "apikey",
        "x_api_key",
        "mediagen_api_key",
        "access_token",
        "bearer",
        "password",
        "secret",
        "client_secret",
    }
)
_BEARER = re.compile(r"(?i)\bbearer\s+[^\s\"',;]+")
_MIN_SECRET_LEN = 4
"""Shorter env values are not scrubbed: replacing 1-3 characters would mangle ordinary text."""


def is_secret_name(name: str) -> bool:
    """Whether a mapping key names a credential (case, dashes and underscores ignored)."""
    return name.strip().lower().replace("-", "_") in _SECRET_NAMES


def _env_secret() -> str | None:
    value = os.environ.get(_env.API_KEY, "")
    return value if len(value) >= _MIN_SECRET_LEN else None


def scrub_text(text: str, secret: str | None = None) -> str:
    """Mask bearer tokens and the configured key inside one string."""
    secret = secret if secret is not None else _env_secret()
    if secret and secret in text:
        text = text.replace(secret, REDACTED)
    if "earer" in text or "EARER" in text:
        text = _BEARER.sub(f"Bearer {REDACTED}", text)
    return text


def redact(value: Any, secret: str | None = None) -> Any:
    """Copy of ``value`` with credential entries dropped and secrets masked in strings.

    Mappings, lists and tuples are walked recursively (tuples become lists, as JSON would
    make them); other values are returned unchanged.
    """
    secret = secret if secret is not None else _env_secret()
    if isinstance(value, str):
        return scrub_text(value, secret)
    if isinstance(value, Mapping):
        return {
            scrub_text(str(k), secret): redact(v, secret)
            for k, v in value.items()
            if not is_secret_name(str(k))
        }
    if isinstance(value, list | tuple):
        return [redact(v, secret) for v in value]
    return value
