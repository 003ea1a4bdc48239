"""What the gateway fetches and serves as media is safe for the teacher page's origin:
results are typed from their bytes, never served as something a browser runs, always with
``nosniff`` and a sandbox CSP (row 9 of issue 31); result URLs on a private address other
than the upstream's own host are never fetched (row 14); a hidden item's media answers 404
(row 12)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from mediagen_nb._serverkit.media_types import sniff
from mediagen_nb.classroom import ClassroomHandle, Upstream, start_classroom
from mediagen_nb.classroom._media import MediaRefusedError, check_address
from mediagen_nb.client._config import Secret
from tests._stub_upstream import Media, Stub, create_and_wait, stub_upstream

PNG = b"\x89PNG\r\n\x1a\n" + bytes(200)
HTML = b"<!doctype html><title>x</title><script>document.title = 'ran'</script>"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
MEDIA = {
    "disguised": Media(PNG, "text/html", suffix=".html"),
    "html": Media(HTML, "text/html", suffix=".html"),
    "svg": Media(SVG, "image/svg+xml", suffix=".svg"),
    "private": Media(PNG, "image/png", host="127.0.0.2"),
    "plain": Media(PNG, "image/png"),
}
PASSIVE = {"image/png", "image/jpeg", "image/webp", "image/gif", "video/mp4", "video/webm"}


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Stub, ClassroomHandle, str]]:
    with (
        stub_upstream(MEDIA) as (stub, upstream),
        start_classroom(["amy"], upstream=upstream, folder=tmp_path / "class") as gateway,
    ):
        yield stub, gateway, gateway.codes["amy"]


def fetch(url: str) -> httpx2.Response:
    return httpx2.get(url, timeout=30)


def test_results_are_typed_from_their_bytes_and_never_served_as_a_page(
    setup: tuple[Stub, ClassroomHandle, str],
) -> None:
    _, gateway, code = setup
    served: dict[str, str] = {}
    for key in ("disguised", "html", "svg"):
        result = create_and_wait(gateway, code, key)
        if result["status"] != "completed":
            served[key] = f"refused: {result['error']}"
            continue
        answer = fetch(result["image_url"])
        media_type = answer.headers["content-type"].split(";")[0]
        served[key] = media_type
        assert answer.headers.get("x-content-type-options") == "nosniff"
        assert "sandbox" in answer.headers.get("content-security-policy", "")
        assert media_type == (sniff(answer.content) or "application/octet-stream")
        assert media_type in PASSIVE or answer.headers["content-disposition"].startswith(
            "attachment"
        )
    print(served)
    assert served["disguised"] == "image/png"
    assert not any(kind.startswith(("text/", "image/svg")) for kind in served.values())


def test_result_urls_on_another_private_host_are_never_fetched(
    setup: tuple[Stub, ClassroomHandle, str],
) -> None:
    stub, gateway, code = setup
    private = create_and_wait(gateway, code, "private")
    plain = create_and_wait(gateway, code, "plain")  # on the upstream's own host: fetched
    print(private["error"], dict(stub.downloads))
    assert private["status"] == "failed"
    assert stub.downloads["private"] == 0
    assert plain["status"] == "completed"
    assert stub.downloads["plain"] == 1


def test_hidden_items_media_answers_404_until_shown_again(
    setup: tuple[Stub, ClassroomHandle, str],
) -> None:
    _, gateway, code = setup
    result = create_and_wait(gateway, code, "plain")
    url = result["image_url"]
    seen = [fetch(url).status_code]
    gateway.hide(result["id"])
    seen.append(fetch(url).status_code)
    gateway.hide(result["id"], hidden=False)
    seen.append(fetch(url).status_code)
    assert seen == [200, 404, 200]


def test_a_stored_file_of_another_type_is_an_attachment_never_a_page(
    setup: tuple[Stub, ClassroomHandle, str],
) -> None:
    _, gateway, code = setup
    kept = create_and_wait(gateway, code, "plain")
    record = gateway.state.tasks[kept["id"]]
    record.media = "legacy-page.html"  # as a gateway before typing by bytes stored it
    (gateway.media_dir / record.media).write_bytes(HTML)
    gateway.state.put_task(record)
    answer = fetch(f"{gateway.base_url}/media/{record.media}")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/octet-stream"
    assert answer.headers["content-disposition"].startswith("attachment")
    assert answer.headers.get("x-content-type-options") == "nosniff"
    assert "sandbox" in answer.headers.get("content-security-policy", "")


@pytest.mark.parametrize(
    ("url", "fetched"),
    [
        ("http://127.0.0.1:9/r.png", True),  # the upstream's own host
        ("https://93.184.215.14/r.png", True),  # a public address
        ("http://localhost:9/r.png", False),  # a name that resolves to loopback
        ("http://127.0.0.2:9/r.png", False),
        ("http://[::1]:9/r.png", False),
        ("http://10.1.2.3/r.png", False),
        ("http://192.168.1.1/r.png", False),
        ("http://169.254.169.254/latest/meta-data", False),  # link-local (cloud metadata)
        ("ftp://127.0.0.1/r.png", False),
    ],
)
def test_which_result_urls_the_gateway_fetches(url: str, fetched: bool) -> None:
    root = "http://127.0.0.1:8000"
    upstream = Upstream(root + "/api", root + "/gateway", Secret("sk-stub"))
    try:
        asyncio.run(check_address(url, upstream))
    except MediaRefusedError:
        assert not fetched
    else:
        assert fetched
