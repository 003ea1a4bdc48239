"""Whether a URL is publicly reachable, the rule of both asset libraries' uploads."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

_LOCAL_SUFFIXES: Final = (".localhost", ".local", ".internal", ".lan", ".home.arpa")
_LEGACY_IPV4 = re.compile(r"[0-9a-fx.]+", re.ASCII | re.IGNORECASE)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def origin(url: str) -> str | None:
    """``scheme://host:port`` of a URL, lower-case with the default port filled in."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if not scheme or not host:
        return None
    port = port if port is not None else _DEFAULT_PORTS.get(scheme)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}" if port is not None else f"{scheme}://{shown}"


def origins(urls: str | Iterable[str | None]) -> frozenset[str]:
    """The origins of some base URLs, or of one (None and unparsable ones skipped)."""
    found = (origin(u) for u in ([urls] if isinstance(urls, str) else urls) if u)
    return frozenset(o for o in found if o is not None)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(host) and host[0].isdigit():
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def not_public_reason(url: str, service_origins: Iterable[str] = ()) -> str | None:
    """Why the service could not fetch ``url`` (None: publicly reachable, or its own)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "it is not a valid URL"
    if parts.scheme.lower() not in _DEFAULT_PORTS:
        return f"{parts.scheme or 'a relative'}: URLs cannot be fetched by the service"
    own = origin(url)
    if own is not None and own in set(service_origins):
        return None
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        return "it has no host"
    address = _address(host)
    if address is None:
        if host == "localhost" or host.endswith(_LOCAL_SUFFIXES):
            return f"{host} is a local host name"
        if "." not in host:
            return f"{host} is a single-label name that public DNS does not resolve"
        return None
    if isinstance(address, ipaddress.IPv6Address):
        address = _embedded_ipv4(address) or address
    if not address.is_global:
        return f"{host} is a loopback, private or reserved address"
    return None
