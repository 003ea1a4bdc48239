"""The media host against a real S3-compatible server on loopback (moto's server mode).

A local file passed to a create is uploaded once under its content hash; the request the
service gets carries the signed URL; fetching that URL gives the same bytes. No mock of
s3fs or botocore: the client speaks S3 over HTTP to moto on 127.0.0.1. moto does not check
signatures or expiry (NOTES.md), so only the URL's shape is asserted about signing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from io import BytesIO
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from PIL import Image

from mediagen_nb.client import AsyncClient, MediaHost, RequestValidationError
from mediagen_nb.emulator import EmulatorHandle
from tests._support import KEY

moto_server = pytest.importorskip("moto.server")
pytest.importorskip("s3fs")

pytestmark = pytest.mark.emulator(speed=600.0, api_key=KEY, seed=7)
BUCKET = "mediagen-inputs"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A moto S3 server on a free loopback port; the endpoint URL."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    try:
        yield endpoint
    finally:
        server.stop()


@pytest.fixture
async def host(s3: str) -> AsyncIterator[MediaHost]:
    media = MediaHost(f"s3://{BUCKET}/inputs")
    fs = await media._filesystem()
    await fs._call_s3("create_bucket", Bucket=BUCKET)
    yield media
    await media.aclose()


def png(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, "PNG")
    return buffer.getvalue()


async def test_a_local_file_is_uploaded_once_and_its_signed_url_serves_it(
    emulator: EmulatorHandle, host: MediaHost, s3: str, tmp_path: Path
) -> None:
    file = tmp_path / "still.png"
    file.write_bytes(png(640, 480, (30, 90, 160)))
    async with AsyncClient(
        emulator.api_key, emulator.base_url, emulator.text_base_url, recorder=None, media_host=host
    ) as client:
        first = await client.videos.create(
            "starvideos_o3", prompt="drift", first_image=file, last_image=file
        )
        again = await client.images.create(
            "nano-banana", prompt="p", image_urls=[file.read_bytes()]
        )
        assert first.request is not None
        assert again.request is not None
        url = first.request["first_image"]
        assert host.uploads == 1  # three uses of one picture, one upload
        assert first.request["last_image"] == url
        assert urlsplit(again.request["image_urls"][0]).path == urlsplit(url).path
    parts = urlsplit(url)
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    assert f"{parts.scheme}://{parts.netloc}" == s3
    assert parts.path == f"/{BUCKET}/inputs/{digest}.png"
    assert {"Signature", "Expires"} <= set(parse_qs(parts.query))
    async with httpx2.AsyncClient() as http:
        fetched = await http.get(url)
    assert fetched.status_code == 200
    assert fetched.content == file.read_bytes()
    assert fetched.headers["content-type"] == "image/png"


PUBLIC_READ = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": "*",
                "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::{BUCKET}/open/*",
            }
        ],
    }
)


async def test_a_public_bucket_gets_plain_urls(host: MediaHost) -> None:
    fs = await host._filesystem()
    await fs._call_s3("put_bucket_policy", Bucket=BUCKET, Policy=PUBLIC_READ)
    public = MediaHost(f"s3://{BUCKET}/open?public=1")
    try:
        data = png(320, 320, (1, 2, 3))
        url = await public.put(data)
    finally:
        await public.aclose()
    assert urlsplit(url).query == ""
    assert url.endswith(f"/{BUCKET}/open/{hashlib.sha256(data).hexdigest()}.png")
    async with httpx2.AsyncClient() as http:
        assert (await http.get(url)).content == data


async def test_the_host_rules_come_before_any_upload(
    emulator: EmulatorHandle, host: MediaHost
) -> None:
    async with AsyncClient(
        emulator.api_key, emulator.base_url, emulator.text_base_url, recorder=None, media_host=host
    ) as client:
        with pytest.raises(RequestValidationError, match="300 to 6000 px"):
            await client.videos.create(
                "seedance_1_5_pro_480p",
                content=[
                    {"type": "text", "text": "t"},
                    {"type": "image_url", "image_url": png(100, 100, (0, 0, 0))},
                ],
            )
        with pytest.raises(RequestValidationError, match="duration"):
            await client.videos.create(
                "starvideos_o3",
                prompt="p",
                duration=99,
                first_image=png(400, 400, (9, 9, 9)),
                last_image=png(400, 400, (9, 9, 9)),
            )
    assert host.uploads == 0


def test_the_host_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIAGEN_MEDIA_HOST", "s3://pics/in?expires=120")
    monkeypatch.setenv("MEDIAGEN_MEDIA_HOST_PUBLIC", "")
    found = MediaHost.from_env()
    assert found is not None
    assert (found.url, found.public, found.expires) == ("s3://pics/in", False, 120)
    monkeypatch.setenv("MEDIAGEN_MEDIA_HOST_PUBLIC", "1")
    public = MediaHost.from_env()
    assert public is not None
    assert public.public
    monkeypatch.delenv("MEDIAGEN_MEDIA_HOST")
    assert MediaHost.from_env() is None
