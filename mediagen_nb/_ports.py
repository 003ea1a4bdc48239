"""Which port ``mediagen-nb lab`` gives JupyterLab: the first one Jupyter itself could bind.

The probe binds as tornado's ``bind_sockets`` does (every address the host resolves to, with
``SO_REUSEADDR``): a plain bind also fails on a port left in TIME_WAIT by a JupyterLab that
just stopped, which Jupyter would take; that made ``lab`` pick 8889 while 8888 looked free.
"""

from __future__ import annotations

import errno
import os
import socket

FIRST_PORT = 8888
"""Jupyter's usual port; ``lab`` takes the first free one from here."""
HOST = "localhost"
"""Where Jupyter listens unless told otherwise (``ServerApp.ip``)."""


def _bind_each(port: int, host: str) -> None:
    """Bind ``port`` on every address of ``host`` as tornado does; raises OSError when taken."""
    family = socket.AF_UNSPEC if socket.has_ipv6 else socket.AF_INET
    found = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    for af, kind, proto, _name, address in sorted(set(found), key=lambda r: r[0]):
        with socket.socket(af, kind, proto) as sock:
            if os.name != "nt":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if af == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRNOTAVAIL and af == socket.AF_INET6:
                    continue  # no ::1 on this machine: tornado skips it too
                raise


def port_free(port: int, host: str = HOST) -> bool:
    """Whether Jupyter could listen on ``port`` at ``host`` now.

    Args:
        port: The port to try.
        host: The address or host name Jupyter listens on.

    Returns:
        True when nothing listens there (a port in TIME_WAIT is free).
    """
    try:
        _bind_each(port, host)
    except OSError:
        return False
    return True


def free_port(first: int = FIRST_PORT, tries: int = 100, host: str = HOST) -> int:
    """The first port from ``first`` that Jupyter could listen on at ``host``.

    Args:
        first: The first port tried.
        tries: How many ports are tried, upwards.
        host: The address or host name Jupyter listens on.

    Returns:
        The port.

    Raises:
        RuntimeError: No port of the range is free.
    """
    for port in range(first, first + tries):
        if port_free(port, host):
            return port
    raise RuntimeError(f"no free port in {first}..{first + tries - 1}")
