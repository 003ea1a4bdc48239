"""Client settings from arguments and environment, and the API-key redaction machinery."""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from mediagen_nb import _env

ENV_API_KEY = _env.API_KEY
ENV_BASE_URL = _env.BASE_URL
ENV_TEXT_BASE_URL = _env.TEXT_BASE_URL
ENV_MEDIA_HOST = _env.MEDIA_HOST
ENV_MEDIA_HOST_PUBLIC = _env.MEDIA_HOST_PUBLIC
ENV_CLASSROOM_URL = _env.CLASSROOM_URL
ENV_HUB_TOKEN = "JUPYTERHUB_API_TOKEN"
"""The token JupyterHub gives every user server (and its kernels): who the user is."""
CLASSROOM_API = "/api"
CLASSROOM_TEXT = "/gateway"
ENV_MAX_DOWNLOAD_MB = _env.MAX_DOWNLOAD_MB

REDACTED = "[redacted]"
_MIN_SECRET_LEN = 4
"""Shorter 'secrets' are not scrubbed from text: replacing every 'ab' would garble messages."""

_secrets_lock = threading.Lock()
_known_secrets: set[str] = set()
_BEARER_RE = re.compile(r"(?i)(bearer\s+)[^\s'\",;]+")


class Secret:
    """A string that is never shown: ``repr`` and ``str`` are redacted.

    Use ``get_secret_value`` at the single place the raw value is needed (the
    ``Authorization`` header).
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value
        if len(value) >= _MIN_SECRET_LEN:
            with _secrets_lock:
                _known_secrets.add(value)

    def get_secret_value(self) -> str:
        """The raw secret."""
        return self._value

    def __repr__(self) -> str:
        return f"Secret('{REDACTED}')"

    def __str__(self) -> str:
        return REDACTED

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("Secret values cannot be pickled")


def redact(text: str) -> str:
    """``text`` with every known API key and any ``Bearer <token>`` replaced by a marker."""
    with _secrets_lock:
        secrets = sorted(_known_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _BEARER_RE.sub(rf"\g<1>{REDACTED}", text)


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be sent in an ``Authorization`` header (None when it can).

    A key may hold only visible ASCII characters (``!`` to ``~``): a space, a line break, a
    control or a non-ASCII character (a zero-width space pasted with it) would make the
    header illegal, and the HTTP library's error would quote the header, key and all. The
    answer names the kind of character and its position, never the key.
    """
    for index, char in enumerate(key, start=1):
        if "!" <= char <= "~":
            continue
        if char in "\r\n":
            kind = "a line break"
        elif char.isspace():
            kind = "a space or other white space"
        elif char.isascii():
            kind = "a control character"
        else:
            kind = f"a non-ASCII character (U+{ord(char):04X})"
        return (
            f"the API key has {kind} at position {index} of {len(key)}; a key may hold only "
            "visible ASCII characters (check for a pasted line break or invisible character)"
        )
    return None


def redact_chain(exc: BaseException) -> None:
    """Scrub the API key from the messages of every exception chained to ``exc``.

    Another library's error (an illegal header value, an encoding error) may quote the
    request's ``Authorization`` header; Jupyter saves the whole chain into the notebook.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        _redact_one(current)  # ours are redacted already: a no-op for them
        current = current.__cause__ or current.__context__


def _redact_one(exc: BaseException) -> None:
    """Replace what ``str(exc)`` shows when it holds the key (a UnicodeError shows its
    ``object``, not its ``args``)."""
    obj = getattr(exc, "object", None)
    if isinstance(exc, UnicodeError) and isinstance(obj, str) and redact(obj) != obj:
        clean = redact(obj)
        exc.object = clean  # type: ignore[attr-defined]
        exc.start, exc.end = 0, len(clean)  # type: ignore[attr-defined]
    text = _exception_text(exc)
    if redact(text) != text:
        exc.args = (redact(text),)


def _exception_text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a broken __str__: judge by the arguments
        return repr(exc.args)


class RedactingFilter(logging.Filter):
    """Logging filter that scrubs API keys from a record's formatted message and exception."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True
        cleaned = redact(message)
        if cleaned != message or record.args:
            record.msg = cleaned
            record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            # Format the traceback now, redacted, so handlers do not re-render the raw one.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


LOGGER_NAMES = (
    "mediagen_nb",
    "mediagen_nb.client",
    "httpx2",
    "httpcore2",
    "httpcore2.connection",
    "httpcore2.http11",
    "httpcore2.http2",
    "httpcore2.proxy",
    "httpcore2.socks",
)
"""Loggers that get a ``RedactingFilter``. Logger filters do not apply to records
propagated from child loggers, so each logger that emits records is listed."""

_filter = RedactingFilter()


def install_log_redaction() -> None:
    """Attach the redacting filter to every logger in ``LOGGER_NAMES`` (idempotent)."""
    for name in LOGGER_NAMES:
        logger = logging.getLogger(name)
        if _filter not in logger.filters:
            logger.addFilter(_filter)


def get_logger(name: str) -> logging.Logger:
    """A client logger that redacts keys (used by every client module)."""
    logger = logging.getLogger(name)
    if _filter not in logger.filters:
        logger.addFilter(_filter)
    return logger


@dataclass(frozen=True)
class Settings:
    """Resolved connection settings; ``api_key`` is None when none was found anywhere."""

    api_key: Secret | None
    base_url: str | None
    text_base_url: str | None

    def __repr__(self) -> str:
        key = "None" if self.api_key is None else repr(self.api_key)
        return (
            f"Settings(api_key={key}, base_url={self.base_url!r}, "
            f"text_base_url={self.text_base_url!r})"
        )


def _clean_url(url: str | None) -> str | None:
    if url is None:
        return None
    url = url.strip().rstrip("/")
    return url or None


def hub_classroom(env: Mapping[str, str] | None = None) -> Settings | None:
    """The classroom gateway of a JupyterHub (``MEDIAGEN_CLASSROOM_URL``) with this server's
    hub token as the key, when both are set and ``MEDIAGEN_API_KEY`` is not; else None."""
    environ = os.environ if env is None else env
    root = _clean_url(environ.get(ENV_CLASSROOM_URL))
    token = environ.get(ENV_HUB_TOKEN, "").strip()
    if root is None or not token or environ.get(ENV_API_KEY, "").strip():
        return None
    return Settings(Secret(token), root + CLASSROOM_API, root + CLASSROOM_TEXT)


def resolve_settings(
    api_key: str | Secret | None = None,
    base_url: str | None = None,
    text_base_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """The settings a client uses: explicit arguments win over ``MEDIAGEN_API_KEY`` /
    ``MEDIAGEN_BASE_URL`` / ``MEDIAGEN_TEXT_BASE_URL``, which win over a hub's classroom
    (``hub_classroom``); empty strings count as unset.

    Args:
        api_key: The key (a string or a ``Secret``); None reads the environment.
        base_url: The image, video, result and asset address; None reads the environment.
        text_base_url: The chat address; None reads the environment.
        env: The environment to read (default ``os.environ``).

    Returns:
        The resolved settings; ``api_key`` is None when no key was found anywhere.
    """
    environ = os.environ if env is None else env
    hub = None if api_key else hub_classroom(environ)
    key: Secret | None
    if isinstance(api_key, Secret):
        key = api_key
    else:
        raw = api_key if api_key else environ.get(ENV_API_KEY, "").strip()
        key = Secret(raw) if raw else (hub.api_key if hub is not None else None)
    return Settings(
        api_key=key,
        base_url=_clean_url(base_url)
        or _clean_url(environ.get(ENV_BASE_URL))
        or (hub.base_url if hub is not None else None),
        text_base_url=_clean_url(text_base_url)
        or _clean_url(environ.get(ENV_TEXT_BASE_URL))
        or (hub.text_base_url if hub is not None else None),
    )
