"""A stand-in "kernel" for the reliability tests: a child process using mediagen_nb like a user.

It configures itself from the environment exactly as a notebook kernel would
(``MEDIAGEN_API_KEY``, ``MEDIAGEN_BASE_URL``, ``MEDIAGEN_TEXT_BASE_URL``, ``MEDIAGEN_HOME``),
creates ``--tasks`` image/video tasks round-robin over every family (and ``--chats`` streamed
chat turns), then waits for all of them. It reports on stdout, one line per fact, flushed:

* ``created <task id>`` after each create returned (its ledger row exists by then);
* ``polling`` once every task exists;
* ``polled <task id> <status>`` after each poll (the test kills the process on one of these);
* ``chat <turn id> <status>`` after each chat turn;
* ``resumed <n>`` with ``--resume``: it first re-attached the unfinished tasks of the history
  (as ``Studio`` does at start), and waits for them too before ``done``;
* ``done <json>`` at the end: ``{"tasks": {id: status}, "chats": {turn id: status},
  "resumed": [ids], "ledger_retries": n}``.

Usage: ``python _kernel.py --tasks 12 --chats 3 --prefix kernel-a [--resume]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: the checkout

import mediagen_nb  # registers the history ledger as the default recorder, like a kernel
from mediagen_nb.client import AsyncClient, Task, TaskError
from tests.reliability._reliability import order


def say(line: str) -> None:
    """One report line on stdout, flushed at once (the parent may kill us any moment)."""
    print(line, flush=True)


async def one_task(client: AsyncClient, task: Task) -> str:
    def polled(t: Task) -> None:
        say(f"polled {t.id} {t.status}")

    with contextlib.suppress(TaskError):  # a failed task is an end too
        await task.wait(timeout=300, on_update=polled)
    return task.status


async def one_chat(client: AsyncClient, prefix: str, i: int) -> tuple[str, str]:
    stream = await client.chat.completions.create(
        model="gpt-5.4",
        messages=[{"role": "user", "content": f"{prefix} question {i}: tell me about tides"}],
        stream=True,
    )
    await stream.until_done()
    status = "completed" if stream.done else "incomplete"
    say(f"chat {stream.turn_id} {status}")
    return str(stream.turn_id), status


async def main(tasks: int, chats: int, prefix: str, resume_first: bool) -> None:
    from mediagen_nb.history import ledger, resume

    assert mediagen_nb.__version__
    async with AsyncClient() as client:
        resumed = await resume(client) if resume_first else []
        if resume_first:
            say(f"resumed {len(resumed)}")
        handles: list[Task] = []
        for i in range(tasks):
            spec = order(i)
            resource = client.images if spec.kind == "image" else client.videos
            task = await resource.create(
                spec.model, family=spec.family, **spec.with_prompt(f"{prefix} task {i}")
            )
            handles.append(task)
            say(f"created {task.id}")
        say("polling")
        results = await asyncio.gather(
            *(one_task(client, t) for t in handles),
            *(one_chat(client, prefix, i) for i in range(chats)),
        )
        if resume_first:
            await resume(client, wait=True)
    statuses = {t.id: str(s) for t, s in zip(handles, results[:tasks], strict=True)}
    turns: dict[str, str] = {r[0]: r[1] for r in results[tasks:] if isinstance(r, tuple)}
    done = {
        "tasks": statuses,
        "chats": turns,
        "resumed": [t.id for t in resumed],
        "ledger_retries": ledger().retries,
    }
    say("done " + json.dumps(done))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--chats", type=int, default=0)
    parser.add_argument("--prefix", default="kernel")
    parser.add_argument("--resume", action="store_true", help="resume unfinished tasks first")
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.chats, args.prefix, args.resume))
