"""``mediagen-nb lab``'s port: the first one Jupyter could listen on (issue 29: it chose 8889
while 8888 looked free, because a plain bind fails on a port left in TIME_WAIT, which Jupyter's
``SO_REUSEADDR`` bind takes)."""

from __future__ import annotations

import socket

import pytest
import tornado.netutil

from mediagen_nb import _ports, cli


def _listener(
    host: str = "127.0.0.1", family: socket.AddressFamily = socket.AF_INET
) -> socket.socket:
    sock = socket.socket(family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.listen()
    return sock


@pytest.fixture
def time_wait_port() -> int:
    """A port nothing listens on, whose last connection the server side closed first, so
    the kernel keeps that end in TIME_WAIT (what a stopped JupyterLab leaves behind)."""
    listener = _listener()
    port = listener.getsockname()[1]
    with socket.create_connection(("127.0.0.1", port)) as client:
        served, _ = listener.accept()
        served.close()  # the server closes first: its end waits in TIME_WAIT
        assert client.recv(1) == b""
    listener.close()
    with socket.socket() as plain, pytest.raises(OSError, match="in use"):
        plain.bind(("127.0.0.1", port))  # the old probe's bind: refused
    return int(port)


def test_a_port_in_time_wait_is_the_one_jupyter_gets(time_wait_port: int) -> None:
    sockets = tornado.netutil.bind_sockets(time_wait_port, "localhost")  # Jupyter's own bind
    for sock in sockets:
        sock.close()
    assert _ports.port_free(time_wait_port)
    assert cli.free_port(time_wait_port, tries=5) == time_wait_port


def test_a_port_someone_listens_on_is_skipped() -> None:
    with _listener() as busy:
        taken = busy.getsockname()[1]
        assert not _ports.port_free(taken)
        assert cli.free_port(taken, tries=20) != taken


def test_every_address_of_the_host_is_probed() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        busy = _listener("::1", socket.AF_INET6)
    except OSError:
        pytest.skip("no ::1 on this machine")
    with busy:
        taken = busy.getsockname()[1]
        assert _ports.port_free(taken, host="127.0.0.1")  # only the IPv6 address is taken
        assert not _ports.port_free(taken, host="::1")


def test_no_free_port_is_said_with_the_range() -> None:
    with _listener() as busy:
        taken = busy.getsockname()[1]
        with pytest.raises(RuntimeError, match=f"no free port in {taken}..{taken}"):
            cli.free_port(taken, tries=1)


def test_lab_says_why_it_did_not_get_8888(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "free_port", lambda: 8891)
    monkeypatch.setattr(cli, "run_forwarding_signals", lambda *a, **k: 0)
    monkeypatch.setattr(cli, "trust", lambda path: None)
    assert cli.main(["lab", "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "Port 8888 is in use (a server listens on it): JupyterLab gets 8891." in out
