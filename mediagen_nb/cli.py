"""Command line: ``mediagen-nb serve`` (the emulator in the foreground) and ``mediagen-nb lab``.

``serve`` prints both base URLs (and ``export`` lines to paste into a shell) once the server
accepts connections, then runs until Ctrl-C or SIGTERM. A key passed with ``--api-key`` is
never echoed; without one a random key is made and printed, since nobody could use the
server otherwise. ``lab`` starts JupyterLab on ``notebooks/00-playground.ipynb`` (looked up
next to the package, then in the current folder) with ``MEDIAGEN_API_KEY`` removed from the
environment, so the notebooks run against the built-in emulator. Run as root (a container, a
CI machine), ``lab`` adds ``--ServerApp.allow_root=True``, without which Jupyter refuses to
start; an ``--allow-root`` or ``allow_root`` option of the user's own is left as given.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import get_args

PLAYGROUND = Path("notebooks") / "00-playground.ipynb"
ALLOW_ROOT = "--ServerApp.allow_root=True"
"""What Jupyter needs to start as root (its own ``--allow-root`` is the same trait)."""


def _parser() -> argparse.ArgumentParser:
    from mediagen_nb.emulator._faults import FaultCategory

    parser = argparse.ArgumentParser(prog="mediagen-nb", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the emulator in the foreground")
    serve.add_argument("--host", default="127.0.0.1", help="interface to bind (default loopback)")
    serve.add_argument("--port", type=int, default=8765, help="port (0: any free port)")
    serve.add_argument("--api-key", default=None, help="key clients must send (default: random)")
    serve.add_argument("--speed", type=float, default=1.0, help="time speed-up (default 1)")
    serve.add_argument("--error-rate", type=float, default=0.0, help="probability of 500/503")
    serve.add_argument("--rate-limit-rate", type=float, default=0.0, help="probability of 429")
    serve.add_argument("--drop-rate", type=float, default=0.0, help="probability of a drop")
    serve.add_argument("--latency", type=float, default=0.0, help="seconds added per request")
    serve.add_argument("--stream-cut-rate", type=float, default=0.0, help="cut text streams")
    serve.add_argument("--seed", type=int, default=None, help="seed for ids, timings, faults")
    serve.add_argument(
        "--fault-categories",
        default="result",
        help="comma-separated request kinds that get faults: "
        + ",".join(get_args(FaultCategory))
        + " (default: result)",
    )
    commands.add_parser(
        "lab", help="open JupyterLab on the playground notebook (other options go to jupyter)"
    )
    return parser


def _serve(args: argparse.Namespace) -> int:
    from mediagen_nb.emulator import FaultConfig, start_emulator

    categories = tuple(c.strip() for c in args.fault_categories.split(",") if c.strip())
    try:
        faults = FaultConfig(
            error_rate=args.error_rate,
            rate_limit_rate=args.rate_limit_rate,
            drop_rate=args.drop_rate,
            latency_s=args.latency,
            stream_cut_rate=args.stream_cut_rate,
            seed=args.seed,
            apply_to=categories,  # checked by FaultConfig
        )
        handle = start_emulator(
            speed=args.speed,
            api_key=args.api_key,
            port=args.port,
            host=args.host,
            faults=faults,
            seed=args.seed,
        )
    except (ValueError, RuntimeError) as error:
        print(f"mediagen-nb serve: {error}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print(f"mediagen_nb emulator running (speed {handle.speed:g})")
    print(f"base_url:      {handle.base_url}")
    print(f"text_base_url: {handle.text_base_url}")
    print(f"export MEDIAGEN_BASE_URL={handle.base_url}")
    print(f"export MEDIAGEN_TEXT_BASE_URL={handle.text_base_url}")
    if args.api_key:
        print("api key: the one given with --api-key")
    else:
        print(f"export MEDIAGEN_API_KEY={handle.api_key}")
    print("Press Ctrl-C to stop.", flush=True)
    while not stop.wait(0.5):
        if not handle.running:
            print("mediagen-nb serve: the server stopped", file=sys.stderr)
            return 1
    handle.stop()
    print("stopped", flush=True)
    return 0


def find_playground(start: Path | None = None) -> Path:
    """The playground notebook: next to the package (a checkout), else under ``start``."""
    candidates = [Path(__file__).resolve().parent.parent / PLAYGROUND]
    here = start or Path.cwd()
    candidates += [here / PLAYGROUND, here / PLAYGROUND.name]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"cannot find {PLAYGROUND} (looked in {', '.join(map(str, candidates))})"
    )


def running_as_root() -> bool:
    """True when the effective user is root (never on systems without ``os.geteuid``)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid is not None and geteuid() == 0


def _mentions_allow_root(option: str) -> bool:
    name = option.split("=", 1)[0].lower()
    return name == "--allow-root" or name.endswith(".allow_root")


def lab_command(notebook: str, extra: Sequence[str], *, as_root: bool) -> list[str]:
    """The ``jupyter lab`` command line: the notebook, ``ALLOW_ROOT`` when ``as_root``, then
    the user's options (last, so they win; an allow-root option of theirs replaces ours)."""
    command = [sys.executable, "-m", "jupyter", "lab", notebook]
    if as_root and not any(_mentions_allow_root(option) for option in extra):
        command.append(ALLOW_ROOT)
    return [*command, *extra]


def _lab(extra: list[str]) -> int:
    try:
        notebook = find_playground()
    except FileNotFoundError as error:
        print(f"mediagen-nb lab: {error}", file=sys.stderr)
        return 2
    root = notebook.parent.parent if notebook.parent.name == "notebooks" else notebook.parent
    env = {k: v for k, v in os.environ.items() if k != "MEDIAGEN_API_KEY"}
    command = lab_command(str(notebook.relative_to(root)), extra, as_root=running_as_root())
    note = f" as root: {ALLOW_ROOT}" if ALLOW_ROOT in command else ""
    print(
        f"Starting JupyterLab on the playground (demo mode: MEDIAGEN_API_KEY unset){note}",
        flush=True,
    )
    return subprocess.call(command, cwd=root, env=env)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``mediagen-nb``; returns the exit status."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "serve":
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return _serve(args)
    return _lab([a for a in extra if a != "--"])


if __name__ == "__main__":
    sys.exit(main())
