"""The environment variables mediagen_nb reads, each name spelled here only (stdlib only)."""

from __future__ import annotations

from typing import Final

API_KEY: Final = "MEDIAGEN_API_KEY"
"""The service's key; without one the client uses the built-in emulator (demo mode)."""
BASE_URL: Final = "MEDIAGEN_BASE_URL"
"""The service's address for images, videos, results and assets."""
TEXT_BASE_URL: Final = "MEDIAGEN_TEXT_BASE_URL"
"""The service's address for chat completions and messages."""
HOME: Final = "MEDIAGEN_HOME"
"""Where the history, the media cache and the emulator's journal live (``~/.mediagen_nb``)."""
DEMO: Final = "MEDIAGEN_DEMO"
"""``in-process`` or ``server``: how demo mode runs the emulator."""
EMULATOR_API_KEY: Final = "MEDIAGEN_EMULATOR_API_KEY"
"""The key clients must send to ``mediagen-nb serve``."""
LITE_CACHE: Final = "MEDIAGEN_LITE_CACHE"
"""Where ``mediagen-nb lite build`` keeps its downloads."""
PLAYGROUND: Final = "MEDIAGEN_PLAYGROUND"
"""The playground notebook ``mediagen-nb lab`` (and Binder's ``start``) opens."""
MEDIA_HOST: Final = "MEDIAGEN_MEDIA_HOST"
"""An fsspec bucket URL local files are uploaded to for the service (``s3://bucket/prefix``)."""
MEDIA_HOST_PUBLIC: Final = "MEDIAGEN_MEDIA_HOST_PUBLIC"
"""``1`` when the media host's bucket is public: the service gets plain URLs, not signed ones."""
CLASSROOM_URL: Final = "MEDIAGEN_CLASSROOM_URL"
"""A classroom gateway run as a JupyterHub service (its root URL, set for student servers):
with it and no ``MEDIAGEN_API_KEY``, a client uses the gateway with the server's hub token."""
MAX_DOWNLOAD_MB: Final = "MEDIAGEN_MAX_DOWNLOAD_MB"
"""The largest result the client downloads, in MiB (default 64 for images, 512 for videos)."""
