"""The ``mediagen-nb`` command: ``serve``, ``classroom``, ``lab`` and ``lite build``.

Each subcommand's options are in its ``--help`` (the site's Command line page is made from
them); how ``lab`` arrives and where ``serve`` reads its key: the site's Design page.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import get_args
from urllib.parse import quote

from mediagen_nb import _env
from mediagen_nb._foreground import run_until_stopped
from mediagen_nb._lab import (
    PLAYGROUND_ENV,
    PLAYGROUND_NOTEBOOK,
    SAVE_HOOK,
    WORKSPACE,
    jupyter_config,
    trust,
    voila_theme,
    with_config_folder,
    workspaces_dir,
    write_workspace,
)
from mediagen_nb._ports import FIRST_PORT
from mediagen_nb._ports import free_port as free_port  # noqa: PLC0414 - re-exported (tests/ui)

PLAYGROUND = Path(PLAYGROUND_NOTEBOOK)
ALLOW_ROOT = "--ServerApp.allow_root=True"
"""What Jupyter needs to start as root (its own ``--allow-root`` is the same trait)."""
PORT_OPTIONS = ("--port", "--ServerApp.port")
IP_OPTIONS = ("--ip", "--ServerApp.ip")
TOKEN_OPTIONS = ("--IdentityProvider.token", "--ServerApp.token")


def _parser() -> argparse.ArgumentParser:
    from mediagen_nb.emulator._faults import FaultCategory

    parser = argparse.ArgumentParser(
        prog="mediagen-nb",
        description="mediagen_nb's command line: the built-in emulator (serve), a classroom "
        "gateway (classroom), JupyterLab on the playground (lab) and the in-browser "
        "playground (lite build).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the emulator in the foreground")
    serve.add_argument("--host", default="127.0.0.1", help="interface to bind (default loopback)")
    serve.add_argument("--port", type=int, default=8765, help="port (0: any free port)")
    serve.add_argument(
        "--api-key",
        default=None,
        help="key clients must send (visible in ps: prefer --api-key-file or "
        f"{KEY_ENV}; default: random)",
    )
    serve.add_argument(
        "--api-key-file", default=None, help="read the key clients must send from this file"
    )
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
    from mediagen_nb.classroom._cli import add_parser as add_classroom

    add_classroom(commands)
    commands.add_parser(
        "lab", help="open JupyterLab on the playground notebook (other options go to jupyter)"
    )
    lite = commands.add_parser("lite", help="the in-browser playground (JupyterLite + Pyodide)")
    lite_commands = lite.add_subparsers(dest="lite_command", required=True)
    build = lite_commands.add_parser(
        "build", help="build the static site: Pyodide and every wheel served from the folder"
    )
    build.add_argument("--output", required=True, type=Path, help="folder to build into")
    build.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="where downloads are kept for offline rebuilds "
        f"(default ${_env.LITE_CACHE} or ~/.cache/mediagen_nb/lite)",
    )
    build.add_argument(
        "--pyodide-cdn",
        action="store_true",
        help="load Pyodide and its whole package set (numpy, pandas, Pillow...) from Pyodide's "
        "CDN: a smaller folder, but visitors need internet",
    )
    build.add_argument(
        "--no-bytecode",
        action="store_true",
        help="ship the wheels as source only: ~7 MB less to download, a slower first start "
        "(by default the site's own Pyodide compiles what a start imports)",
    )
    return parser


def _lite_build(args: argparse.Namespace) -> int:
    try:
        from mediagen_nb._lite import build_site
    except ImportError as error:  # packaging / jupyterlite missing
        print(f"mediagen-nb lite build: {error}; pip install -e '.[lite]'", file=sys.stderr)
        return 2
    try:
        site = build_site(
            args.output,
            cache=args.cache_dir,
            pyodide_cdn=args.pyodide_cdn,
            precompile_wheels=not args.no_bytecode,
        )
    except RuntimeError as error:
        print(f"mediagen-nb lite build: {error}", file=sys.stderr)
        return 1
    print(
        f"Built {site.output} ({site.files} files, {site.bytes / 1e6:.1f} MB, "
        f"{len(site.wheels)} wheels). Serve the folder with any static web server, e.g.\n"
        f"  python -m http.server --bind 127.0.0.1 --directory {site.output} 8000\n"
        "and open http://127.0.0.1:8000/ (a file:// address cannot run it)."
        + ("\nPyodide comes from its CDN: visitors need internet." if args.pyodide_cdn else ""),
        flush=True,
    )
    return 0


KEY_ENV = _env.EMULATOR_API_KEY
"""Environment variable ``serve`` reads the emulator's key from."""


def serve_key(args: argparse.Namespace) -> tuple[str | None, str]:
    """The key ``serve`` uses and where it came from (see the module docstring).

    Raises ValueError for a key file that cannot be read or is empty.
    """
    if args.api_key_file:
        try:
            text = Path(args.api_key_file).expanduser().read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            msg = f"--api-key-file: cannot read {args.api_key_file} ({type(exc).__name__})"
            raise ValueError(msg) from exc
        key = text.strip().splitlines()[0].strip() if text.strip() else ""
        if not key:
            raise ValueError(f"--api-key-file: {args.api_key_file} holds no key")
        return key, f"read from {args.api_key_file}"
    if os.environ.get(KEY_ENV, "").strip():
        return os.environ[KEY_ENV].strip(), f"from {KEY_ENV}"
    if args.api_key:
        print(
            "mediagen-nb serve: warning: --api-key is visible to every user in the process "
            f"list (ps); use --api-key-file or {KEY_ENV} instead",
            file=sys.stderr,
        )
        return args.api_key, "the one given with --api-key"
    return None, "generated"


def _serve(args: argparse.Namespace) -> int:
    from mediagen_nb.emulator import FaultConfig, start_emulator

    categories = tuple(c.strip() for c in args.fault_categories.split(",") if c.strip())
    try:
        key, source = serve_key(args)
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
            api_key=key,
            port=args.port,
            host=args.host,
            faults=faults,
            seed=args.seed,
        )
    except (ValueError, RuntimeError) as error:
        print(f"mediagen-nb serve: {error}", file=sys.stderr)
        return 2
    print(f"mediagen_nb emulator running (speed {handle.speed:g})")
    print(f"base_url:      {handle.base_url}")
    print(f"text_base_url: {handle.text_base_url}")
    print(f"export {_env.BASE_URL}={handle.base_url}")
    print(f"export {_env.TEXT_BASE_URL}={handle.text_base_url}")
    if key is not None:
        print(f"api key: {source}")
    else:
        print(f"export {_env.API_KEY}={handle.api_key}")
    return run_until_stopped(handle, "mediagen-nb serve", "server")


def find_playground(start: Path | None = None) -> Path:
    """The playground notebook: under ``start`` (default: the current folder), else next to
    the package (a checkout). A copy in the current folder wins, so a person (or a test) can
    run the playground from a folder of their own without touching the checkout's copy."""
    here = start or Path.cwd()
    candidates = [here / PLAYGROUND, here / PLAYGROUND.name]
    candidates.append(Path(__file__).resolve().parent.parent / PLAYGROUND)
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


@dataclass(frozen=True)
class LabLaunch:
    """What ``mediagen-nb lab`` runs and the addresses it prints before running it."""

    command: list[str]
    lab_url: str
    """The playground notebook open in JupyterLab (token included)."""
    voila_url: str
    """The same notebook rendered as an app by Voila's server extension (token included)."""
    arrival_url: str
    """What opens: the ``mediagen-playground`` workspace, the playground running in Voila's
    preview inside JupyterLab (token included)."""


def _option_value(extra: Sequence[str], names: Sequence[str]) -> str | None:
    """The last value given to any of ``names`` (``--name=value`` or ``--name value``)."""
    found: str | None = None
    for index, option in enumerate(extra):
        name, equals, value = option.partition("=")
        if name not in names:
            continue
        if equals:
            found = value
        elif index + 1 < len(extra):
            found = extra[index + 1]
    return found


def lab_command(
    notebook: str, extra: Sequence[str], *, as_root: bool, port: int, token: str
) -> LabLaunch:
    """The ``jupyter lab`` command line and the addresses to print.

    The server's default page is the playground's workspace (``notebook``, a ``/``-separated
    path under the server root, running in Voila's preview), on ``port`` with ``token``, with
    the save hook that keeps the playground's outputs out of the file, plus ``ALLOW_ROOT``
    when ``as_root``; the user's options go last, so they win (an allow-root option of theirs
    replaces ours, and their port, ip or token is the one printed).
    """
    path = quote(notebook)
    command = [
        sys.executable, "-m", "jupyter", "lab",
        f"--ServerApp.default_url=/lab/workspaces/{WORKSPACE}",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ContentsManager.pre_save_hook={SAVE_HOOK}",
    ]  # fmt: skip
    # Jupyter refuses a trait given twice (``--port`` is ``--ServerApp.port``): theirs only
    for names, ours in (
        (PORT_OPTIONS, "--ServerApp.port="),
        (TOKEN_OPTIONS, "--IdentityProvider."),
    ):
        if _option_value(extra, names) is not None:
            command = [option for option in command if not option.startswith(ours)]
    if as_root and not any(_mentions_allow_root(option) for option in extra):
        command.append(ALLOW_ROOT)
    command += extra
    host = _option_value(extra, IP_OPTIONS) or "localhost"
    if host in {"0.0.0.0", "::", "*"}:  # listening everywhere: this machine answers too
        host = "localhost"
    users_token = _option_value(extra, TOKEN_OPTIONS)
    token = token if users_token is None else users_token
    query = f"?token={quote(token)}" if token else ""
    base = f"http://{host}:{_option_value(extra, PORT_OPTIONS) or port}"
    return LabLaunch(
        command=command,
        lab_url=f"{base}/lab/tree/{path}{query}",
        voila_url=f"{base}/voila/render/{path}{query}",
        arrival_url=f"{base}/lab/workspaces/{WORKSPACE}{query}",
    )


def run_forwarding_signals(command: list[str], *, cwd: Path, env: dict[str, str]) -> int:
    """Run ``command`` and return its exit status; a SIGTERM sent to this process is passed
    on (so stopping ``mediagen-nb lab`` stops Jupyter instead of orphaning it). Ctrl-C in a
    terminal reaches Jupyter directly (same process group), so here it is only ignored:
    Jupyter asks its own "Shutdown this Jupyter server?" question."""
    child = subprocess.Popen(command, cwd=cwd, env=env)

    def forward(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGTERM:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _prepare_arrival(notebook: Path, relative: str, extra: list[str]) -> list[str]:
    """Write the playground's workspace and trust the notebook; returns options to add."""
    folder, options = workspaces_dir(extra)
    write_workspace(folder, relative)
    options += voila_theme(extra)
    try:
        trust(notebook)
    except Exception as error:  # never fatal: Voila's preview then asks "Render anyway?"
        print(f"mediagen-nb lab: could not mark the playground trusted ({error})", file=sys.stderr)
    return options


def _lab(extra: list[str]) -> int:
    try:
        notebook = find_playground()
        port = free_port()
    except (FileNotFoundError, RuntimeError) as error:
        print(f"mediagen-nb lab: {error}", file=sys.stderr)
        return 2
    root = notebook.parent.parent if notebook.parent.name == "notebooks" else notebook.parent
    relative = notebook.relative_to(root).as_posix()
    env = {k: v for k, v in os.environ.items() if k != _env.API_KEY}
    env[PLAYGROUND_ENV] = relative
    env = with_config_folder(env, jupyter_config())  # no "Jupyter news?" toast on arrival
    options = _prepare_arrival(notebook, relative, extra)
    launch = lab_command(
        relative,
        options + extra,
        as_root=running_as_root(),
        port=port,
        token=secrets.token_hex(24),
    )
    note = f" as root: {ALLOW_ROOT}" if ALLOW_ROOT in launch.command else ""
    if port != FIRST_PORT and _option_value(extra, PORT_OPTIONS) is None:
        print(f"Port {FIRST_PORT} is in use (a server listens on it): JupyterLab gets {port}.")
    print(
        f"Starting JupyterLab (demo mode: {_env.API_KEY} unset){note}. It opens on the\n"
        "playground already running (the Studio, in Voila's preview tab), the file browser\n"
        f"beside it; the notebook is {relative} (outputs are never saved into it).\n"
        f"  Opens:                        {launch.arrival_url}\n"
        f"  Playground in JupyterLab:     {launch.lab_url}\n"
        f"  Playground as an app (Voila): {launch.voila_url}",
        flush=True,
    )
    return run_forwarding_signals(launch.command, cwd=root, env=env)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``mediagen-nb``; returns the exit status."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "serve":
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return _serve(args)
    if args.command == "classroom":
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        from mediagen_nb.classroom._cli import run as run_classroom

        return run_classroom(args)
    if args.command == "lite":
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return _lite_build(args)
    return _lab([a for a in extra if a != "--"])


if __name__ == "__main__":
    sys.exit(main())
