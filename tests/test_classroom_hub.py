"""The classroom on a real JupyterHub (loopback): two users, each with a server, generate
through the gateway as themselves, with their hub token and no code; a hub group's budget
is refused with its sentence. See ``tests/_hub.py`` for the hub."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest

from tests._hub import SERVICE, running_hub, server_environment

pytestmark = pytest.mark.timeout(120)

STUDENT_CODE = """
import asyncio, json
import mediagen_nb as mg

async def main():
    async with mg.AsyncClient(recorder=None) as client:
        me = await client.classroom.me()
        made = []
        for prompt in ("a kite", "a boat"):
            task = await client.images.create("nano-banana", prompt=prompt)
            if task.status != "failed":
                await task.wait()
            made.append({"status": task.status, "error": task.error})
        after = await client.classroom.me()
        print(json.dumps({
            "demo": client.demo_mode,
            "base_url": client.base_url,
            "repr": repr(client),
            "student": me.student,
            "groups": me.groups,
            "limit": me.limits.images,
            "made": made,
            "left": after.left_text(),
        }))

asyncio.run(main())
"""


def _as_users(environments: list[dict[str, str]]) -> list[dict[str, object]]:
    """Run the student's code with each user's server environment (what a kernel there
    inherits), all at once; each one's printed result."""
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", STUDENT_CODE],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for env in environments
    ]
    results = []
    for run in runs:
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def _wall_through_the_proxy(wall: str) -> list[dict[str, str]]:
    """The projector's wall as the hub's proxy serves it (path prefix kept): the page, its
    script, the feed, and each picture at the address the page's script makes of it."""
    page = httpx2.get(wall, timeout=10.0)
    assert page.status_code == 200
    assert 'src="wall/static/wall.js"' in page.text  # relative: resolves under the prefix
    assert httpx2.get(f"{wall}/static/wall.js", timeout=10.0).status_code == 200
    items: list[dict[str, str]] = httpx2.get(f"{wall}/feed.json", timeout=10.0).json()["items"]
    for item in items:
        picture = httpx2.get(wall.rsplit("/", 1)[0] + item["url"], timeout=10.0)
        assert picture.status_code == 200
        assert picture.headers["content-type"].startswith("image/")
    return items


def test_two_hub_users_generate_as_themselves_with_group_budgets(tmp_path: Path) -> None:
    started = time.monotonic()
    gateway_args = [
        "--upstream", "emulator", "--speed", "200", "--port", "0",
        "--images", "5", "--group-limits", "teachers=unlimited,class-7b=images:1",
        "--folder", str(tmp_path / "class"),
    ]  # fmt: skip
    with running_hub(tmp_path / "hub", gateway_args) as hub:
        hub.api("POST", "/users", {"usernames": ["ann", "tess"]})
        hub.api("POST", "/groups/class-7b", {"users": ["ann"]})
        hub.api("POST", "/groups/teachers", {"users": ["tess"]})
        pids = hub.start_servers(["ann", "tess"])
        up = time.monotonic() - started
        try:
            envs = {user: server_environment(pid) for user, pid in pids.items()}
            for user, env in envs.items():
                assert env["JUPYTERHUB_USER"] == user
                assert env["MEDIAGEN_CLASSROOM_URL"] == hub.gateway_url
                assert "MEDIAGEN_API_KEY" not in env
            ann, tess = _as_users([envs["ann"], envs["tess"]])
            wall = _wall_through_the_proxy(f"{hub.url}/services/{SERVICE}/wall")
        finally:
            for user in pids:
                hub.api("DELETE", f"/users/{user}/server")
    print(f"hub and two servers up in {up:.1f} s; whole test {time.monotonic() - started:.1f} s")
    assert (ann["student"], ann["groups"], ann["limit"]) == ("ann", ["class-7b"], 1)
    assert (tess["student"], tess["groups"], tess["limit"]) == ("tess", ["teachers"], None)
    assert ann["demo"] is False
    assert ann["base_url"] == hub.gateway_url + "/api"
    assert ann["made"] == [
        {"status": "completed", "error": None},
        {"status": "failed", "error": "your class allows 1 image each; you have used 1"},
    ]
    assert tess["made"] == [{"status": "completed", "error": None}] * 2
    assert ann["left"] == "0 of 1 images left"
    assert tess["left"] == ""
    for user, result in (("ann", ann), ("tess", tess)):
        assert envs[user]["JUPYTERHUB_API_TOKEN"] not in str(result["repr"])
    with contextlib.closing(sqlite3.connect(tmp_path / "class" / "classroom.sqlite3")) as ledger:
        roster = sorted(ledger.execute("SELECT name, code FROM students"))
    assert roster == [("ann", None), ("tess", None)]  # hub users: nobody was given a code
    assert sorted(item["student"] for item in wall) == ["ann", "tess", "tess"]
