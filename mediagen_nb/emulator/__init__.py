"""The built-in emulator: a faithful local implementation of the whole service.

It is the embedded default service (no API key: demo mode), the Binder playground's service
and the peer of the integration tests. ``create_app`` gives the ASGI app (for
``httpx2.ASGITransport``); ``start_emulator`` serves it on loopback in a background thread;
``mediagen-nb serve`` runs it in the foreground.

URLs: ``base_url = http://HOST:PORT/api`` (images, videos, results, media, assets) and
``text_base_url = http://HOST:PORT/gateway`` (chat completions, messages). Every response
carries ``x-mediagen-emulator-speed``; every service duration is divided by that speed.

Conventions a class can use to show each failure path on purpose (details in the modules):

* invalid create body -> create response ``status: failed``, ``error: "field: rule; ..."``;
* ``[policy]`` in the prompt -> content-policy failure from the first poll; in a chat's last
  user message -> the service's refusal (chat: ``finish_reason: content_filter``; messages:
  ``stop_reason: refusal``), so a teacher can rehearse one;
* ``[fail]`` in the prompt -> ``queued -> processing -> failed``;
* a video reference URL whose path has ``face`` or ``portrait`` -> "must be submitted via
  the asset library" (sora: "real portrait photographs are not supported");
* ``asset://`` ids that are unknown, deleted, ``Processing`` or ``Failed`` -> failure naming
  the field; deleting an asset used by a pending task fails that task;
* sd2 reference audio over 15 s in total (length from ``#t=N`` or ``?duration=N``, else 5 s);
* a starvideos reference video shorter than 3 s or longer than 10 s (length read the same
  way) -> failure naming ``referenceVideos[0]``;
* asset URLs containing ``reject`` or ``nsfw`` -> review ends ``Failed``; uploads (both
  libraries) of URLs on local or private hosts -> code ``"400"`` (sd2: also ``failedItems``),
  except the emulator's own URLs;
* polling a task more often than its family's minimum interval / speed -> 429 + Retry-After;
* result URLs expire after the family's URL lifetime / speed (410), records after their
  retention / speed (404); memory is bounded (10,000 tasks, 10,000 assets, 256 MiB media,
  1 MiB request bodies).

Fault injection (``FaultConfig``): 500/503, 429, dropped connections, latency, stream cuts.
"""

from mediagen_nb.emulator._app import create_app
from mediagen_nb.emulator._faults import FaultConfig
from mediagen_nb.emulator._server import EmulatorHandle, start_emulator
from mediagen_nb.emulator._state import EmulatorState

__all__ = [
    "EmulatorHandle",
    "EmulatorState",
    "FaultConfig",
    "create_app",
    "start_emulator",
]
