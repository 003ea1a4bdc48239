"""Package-level conveniences that need a client the user did not make: ``resume()``.

The client ``resume()`` makes lives as long as its event loop: re-attached tasks keep
polling through it after ``resume`` returns.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient, Task

_clients: dict[int, AsyncClient] = {}


def default_client() -> AsyncClient:
    """One shared client per running event loop (made on first use)."""
    from mediagen_nb.client import AsyncClient

    loop_id = id(asyncio.get_running_loop())
    client = _clients.get(loop_id)
    if client is None:
        client = _clients[loop_id] = AsyncClient()
    return client


async def resume(client: AsyncClient | None = None, **kwargs: Any) -> list[Task]:
    """Re-attach every unfinished task of the default (or given) client's service, and
    finish its unfinished sweeps (their cells not yet created are sent, once).

    Returns at once with the tasks being polled in the background (``wait=True`` waits for
    them and for the sweeps).

    Args:
        client: The client whose service to resume; None: one shared client per event loop
            (the real service when ``MEDIAGEN_API_KEY`` is set, else the emulator).
        **kwargs: The options of :func:`mediagen_nb.history.resume` (``on_task``, ``home``,
            ``wait``, ``include_this_process``).

    Returns:
        The tasks being resumed, each a :class:`mediagen_nb.Task`.
    """
    from mediagen_nb.history import resume as resume_with
    from mediagen_nb.sweeps._resume import resume_sweeps

    client = client if client is not None else default_client()
    wait = bool(kwargs.pop("wait", False))
    tasks = await resume_with(client, **kwargs)
    runs = await resume_sweeps(client, tasks, home=kwargs.get("home"))
    if wait:
        await asyncio.gather(*runs)
        await resume_with(client, wait=True, **kwargs)
    return tasks
