"""``mediagen-nb classroom``: the gateway in the foreground, with what to tell the class.

It prints the students' settings (both base URLs), their codes (or the class code and how to
combine it with a name), the wall's address and the teacher's (token) address, then serves
until Ctrl-C. The upstream key is never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path
from urllib.parse import urlsplit

from mediagen_nb import _env
from mediagen_nb._foreground import run_until_stopped
from mediagen_nb.classroom._handle import ClassroomHandle
from mediagen_nb.classroom._hub import ENV_API_URL
from mediagen_nb.classroom._moderation import read_rules
from mediagen_nb.classroom._rules import Limits, parse_group_limits
from mediagen_nb.classroom._server import is_loopback, share_addresses
from mediagen_nb.classroom._shared import LEASE_S
from mediagen_nb.classroom._throttle import ENROL_LIMIT


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``classroom`` command to the CLI's subcommands."""
    p = commands.add_parser("classroom", help="run a classroom gateway (codes, budgets, wall)")
    p.add_argument("--students", type=int, default=0, help="number of generated codes")
    p.add_argument("--roster", type=Path, default=None, help="file of names, one per line")
    p.add_argument(
        "--class-code", action="store_true", help="students may join as CLASSCODE:their-name"
    )
    p.add_argument(
        "--upstream",
        choices=("auto", "emulator", "service"),
        default="auto",
        help=f"where to forward (auto: the service if {_env.API_KEY} is set, else emulator)",
    )
    p.add_argument("--speed", type=float, default=30.0, help="emulator speed-up (emulator only)")
    p.add_argument("--models", default=None, help="comma-separated models students may use")
    p.add_argument("--images", type=int, default=None, help="images per student")
    p.add_argument("--videos", type=int, default=None, help="videos per student")
    p.add_argument("--concurrent", type=int, default=None, help="tasks at once per student")
    p.add_argument("--chat-tokens", type=int, default=None, help="chat tokens per student")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default loopback)")
    p.add_argument("--port", type=int, default=8780, help="port (0: any free port)")
    p.add_argument("--cors-origin", action="append", default=[], help="browser origin to allow")
    p.add_argument("--folder", type=Path, default=None, help="ledger and media folder")
    p.add_argument(
        "--ledger",
        default=None,
        metavar="URL",
        help="keep the class in PostgreSQL (postgresql://user@host:port/db), shared by every "
        "gateway started on it; default: SQLite in the folder",
    )
    p.add_argument(
        "--lease",
        type=float,
        default=LEASE_S,
        help="seconds before another gateway takes over the tasks of a gateway that died",
    )
    p.add_argument(
        "--block",
        type=Path,
        default=None,
        metavar="FILE",
        help="prompt rules, one a line: a word or phrase (whole words, any case) or re:PATTERN",
    )
    p.add_argument(
        "--approve", action="store_true", help="the wall shows only items the teacher approved"
    )
    p.add_argument(
        "--jupyterhub",
        action="store_true",
        help="run as a JupyterHub service: students sign in with their hub token "
        "(JUPYTERHUB_API_URL; host and port from JUPYTERHUB_SERVICE_URL)",
    )
    p.add_argument(
        "--group-limits",
        default=None,
        help="limits per hub group, first match wins: teachers=unlimited,class-7b=images:5",
    )
    p.add_argument(
        "--enrol-limit",
        type=int,
        default=ENROL_LIMIT,
        help="new class-code names one client address may enrol per 10 minutes",
    )


def hub_address(args: argparse.Namespace) -> tuple[str | None, str, int]:
    """(hub API URL, host, port) for ``--jupyterhub`` (the hub's environment for a managed
    service), else (None, ``--host``, ``--port``).

    Raises:
        ValueError: ``--jupyterhub`` outside a hub service (no ``JUPYTERHUB_API_URL``).
    """
    if not args.jupyterhub:
        return None, args.host, args.port
    api_url = os.environ.get(ENV_API_URL, "").strip()
    if not api_url:
        raise ValueError(
            f"--jupyterhub needs {ENV_API_URL}: run the gateway as a service of the hub "
            "(c.JupyterHub.services in jupyterhub_config.py)"
        )
    service = urlsplit(os.environ.get("JUPYTERHUB_SERVICE_URL", ""))
    host = service.hostname or args.host
    return api_url, host, service.port or args.port


def describe(handle: ClassroomHandle) -> str:
    """What the teacher shares with the class (never the key)."""
    if handle.hub:
        return "\n".join(
            [
                f"mediagen_nb classroom gateway on JupyterHub (upstream: {handle.upstream.kind})",
                "Student servers need (c.Spawner.environment in jupyterhub_config.py):",
                f"  {_env.CLASSROOM_URL}={handle.root_url}",
                "Students sign in with their hub token: no code to type.",
                f"Wall:    {handle.wall_url}  (through the hub: /services/<name>/wall)",
                f"Teacher: {handle.teacher_url}",
            ]
        )
    lines = [
        f"mediagen_nb classroom gateway (upstream: {handle.upstream.kind})",
        "Students set:",
        f"  {_env.BASE_URL}={handle.base_url}",
        f"  {_env.TEXT_BASE_URL}={handle.text_base_url}",
        f"  {_env.API_KEY}=<their code>",
        "(or paste the two addresses and the code into the Studio's Connect form)",
    ]
    if handle.codes:
        lines.append("Codes:")
        lines += [f"  {name}: {code}" for name, code in handle.codes.items()]
    if handle.class_code:
        lines.append(f"Class code: {handle.class_code}  (key = {handle.class_code}:your-name)")
    if handle.blocked or handle.approval:
        rules = f"{len(handle.blocked)} blocked prompt rules"
        lines.append(rules + ("; the wall shows approved items only" if handle.approval else ""))
    lines += [f"Wall:    {handle.wall_url}", f"Teacher: {handle.teacher_url}"]
    shared = handle.state.shared
    if shared is not None:
        lines.append(
            f"Shared ledger: this gateway is {shared.holder}; another takes over its tasks "
            f"{shared.lease_s:g} s after it stops"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the gateway until Ctrl-C; returns the exit status."""
    from mediagen_nb.classroom._server import start_classroom

    models = [m.strip() for m in args.models.split(",") if m.strip()] if args.models else None
    try:
        blocked = read_rules(args.block.read_text(encoding="utf-8")) if args.block else None
        hub, host, port = hub_address(args)
        groups = parse_group_limits(args.group_limits) if args.group_limits else None
        given = (args.images, args.videos, args.concurrent, args.chat_tokens)
        # No limit given: keep the class's (a gateway joining a shared class keeps its rules).
        limits = Limits(*given) if any(v is not None for v in given) else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the warning is printed below, with addresses
            handle = start_classroom(
                args.students,
                roster=args.roster,
                class_code=args.class_code,
                models=models,
                limits=limits,
                upstream=args.upstream,
                speed=args.speed,
                group_limits=groups,
                jupyterhub=hub,
                prefix=os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "") if hub else "",
                host=host,
                port=port,
                cors_origins=args.cors_origin,
                folder=args.folder,
                enrol_limit=args.enrol_limit,
                ledger=args.ledger,
                lease=args.lease,
                blocked=blocked,
                approve=True if args.approve else None,
            )
    except (ValueError, RuntimeError, OSError) as error:
        print(f"mediagen-nb classroom: {error}", file=sys.stderr)
        return 2
    print(describe(handle))
    if not is_loopback(host) and hub is None:
        print(
            f"WARNING: listening on {host}: anyone who can reach this machine and holds "
            "a code can use the class's budget. Addresses to share:",
            file=sys.stderr,
        )
        for address in share_addresses(handle.port):
            print(f"  {address}/api  and  {address}/gateway", file=sys.stderr)
    return run_until_stopped(handle, "mediagen-nb classroom", "gateway")
