"""The ``assets`` namespace: the seedance 2.0 and sd2 manxue asset libraries.

Upload media, read its review status, wait until it is ``Active``, delete it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx2

from mediagen_nb import _hooks
from mediagen_nb.catalog import asset_uri
from mediagen_nb.catalog._assets import ASSET_ACTIVE, ASSET_FAILED, ASSET_LIBRARIES, library_for_id
from mediagen_nb.types import AssetFailure, AssetInfo
from mediagen_nb.types._responses import AssetEnvelope
from mediagen_nb.types._urls import not_public_reason, origins

from ._context import DELETED, ClientContext
from ._exceptions import APIConnectionError, AssetError, AssetNotUsableError, AssetTimeoutError
from ._parse import parse_answer

ASSET_POLL_S = 3.0  # not shown by the spec; divided by the emulator speed
ASSET_DEADLINE_S = 600.0  # not shown by the spec; divided by the emulator speed
_SD2 = ASSET_LIBRARIES["sd2"]
_SEEDANCE2 = ASSET_LIBRARIES["seedance2"]
UPLOAD_PATH = "/uploads"
"""The built-in emulator's file upload (not a service endpoint; see ``host_file``)."""
MAX_REDIRECTS = 3
"""Redirects ``fetch_media`` follows, each target checked against the public-address rule."""


@dataclass(frozen=True)
class AssetBatch:
    """What an upload or status call of a library answers: items taken, items refused.

    Attributes:
        items: One ``AssetInfo`` per asset the library took (or
            whose status it reported): ``assetId``, ``status`` and what else it sent.
        failed_items: The sd2 library's ``failedItems``, as sent (the service's own
            shape, for example the URL and the reason); empty for seedance 2.0.
    """

    items: list[AssetInfo]
    failed_items: list[AssetFailure] = field(default_factory=list)


class Assets:
    """``client.assets``: the seedance 2.0 and sd2 manxue asset libraries.

    Upload media a video request should reference, wait until review makes it ``Active``,
    then pass ``asset://{assetId}`` in the request. The client remembers every status it
    sees, so a create that references an asset known not to be ``Active`` is refused
    before sending.

    Example:
        ```python
        info = await client.assets.upload("https://example.com/cat.png", "Image")
        await client.assets.wait_active([info.assetId])
        ref = client.assets.asset_uri(info.assetId)  # "asset://asset-..."
        ```

    Args:
        context: The client's shared state. You do not build this: use ``client.assets``.
    """

    def __init__(self, context: ClientContext) -> None:
        self._ctx = context

    @staticmethod
    def asset_uri(asset_id: str) -> str:
        """The reference string for generation requests: ``asset://{assetId}``.

        Args:
            asset_id: The id the library gave the asset.

        Returns:
            ``asset://`` followed by the id.
        """
        return asset_uri(asset_id)

    def known_status(self, asset_id: str) -> str | None:
        """The last status this client saw for an asset; nothing is sent.

        Args:
            asset_id: The asset's id.

        Returns:
            ``submitted``, ``Processing``, ``Active`` or ``Failed`` as the library said,
            ``deleted`` after ``delete``, or None for an asset this client never saw.
        """
        return self._ctx.asset_status.get(asset_id)

    def _note(
        self, info: AssetInfo, library: str, *, action: str = "status", made_from: str = ""
    ) -> None:
        """Keep an asset's status and record it; ``made_from``: the task whose result the
        upload sent (the asset's parent in the history's lineage)."""
        previous = self._ctx.asset_status.get(info.assetId)
        self._ctx.asset_library[info.assetId] = library
        if info.status is not None:
            self._ctx.asset_status[info.assetId] = info.status
        if action != "status" or info.status != previous:
            lineage: dict[str, Any] = {"parents": [made_from]} if made_from else {}
            self._ctx.recorder.event(
                "asset",
                action,
                info.assetId,
                family=ASSET_LIBRARIES[library].family,
                library=library,
                status=info.status,
                asset=info.model_dump(mode="json"),
                **lineage,
            )

    def _made_from(self, info: AssetInfo, sent: Sequence[str]) -> str:
        """The task whose result an uploaded asset shows: the one the client knows its URL
        of (a task's result, a frame or file hosted for it); a batch item is matched by the
        URL the service echoes, a batch of one URL needs no match."""
        known = self._ctx.made_from
        for url in (info.originalUrl, info.url):
            if url and url in sent and url in known:
                return known[url]
        return known.get(sent[0], "") if len(sent) == 1 else ""

    async def _call(
        self, method: str, path: str, body: Any | None = None, *, asset_id: str | None = None
    ) -> AssetEnvelope:
        """Send one library request; a refusal (``code != 0``) is recorded, then raised.

        A refused upload has no asset id yet: it gets its own ``failed`` row under a local
        ``attempt-...`` key, so the URL the user submitted stays in history. A refused read or
        delete of a known asset is an ``error`` event on that asset (its state is unchanged).
        """
        if body is not None:
            self._ctx.check(path, body)
        data, response = await self._ctx.core.request(
            method, "base", path, body, idempotent=method != "POST" or path == _SD2.status_path
        )
        envelope = parse_answer(AssetEnvelope, data, response)
        if not envelope.ok:
            failure = {"code": envelope.code, "msg": envelope.msg, "path": path}
            error = f"{path}: code {envelope.code}: {envelope.msg}"
            if asset_id is None and method == "POST" and path != _SD2.status_path:
                library = "sd2" if path == _SD2.upload_path else "seedance2"
                self._ctx.recorder.event(
                    "asset",
                    "failed",
                    f"attempt-{uuid.uuid4().hex[:12]}",
                    family=ASSET_LIBRARIES[library].family,
                    library=library,
                    request=body,
                    error=error,
                    **failure,
                )
            else:
                key = asset_id or path
                self._ctx.recorder.event("asset", "error", key, error=error, **failure)
            raise AssetError(envelope.code, envelope.msg, path=path)
        return envelope

    async def upload(self, url: Any, asset_type: str, *, name: str | None = None) -> AssetInfo:
        """Submit one file to the seedance 2.0 library for review.

        Args:
            url: A publicly reachable ``http(s)`` URL of the media (no loopback, private or
                local host). A completed ``Task``, a ``Path`` or ``bytes`` also work:
                the client turns each into a URL the service can fetch.
            asset_type: ``Image``, ``Video``, ``Audio`` or ``Document``.
            name: A name to show in the library, if you want one.

        Returns:
            The asset: its ``assetId`` and the ``status`` the library answered with;
            ``wait_active`` waits until review makes it ``Active``.

        Raises:
            RequestValidationError: The URL or type breaks a rule (nothing sent), or a
                task, file or bytes cannot be turned into a URL.
            AssetError: The library refused the upload (its ``code`` and ``msg``).
            APIConnectionError: No answer from the service.
        """
        url = await self._url(url, "url")
        body: dict[str, Any] = {"assetType": asset_type, "url": url}
        if name is not None:
            body["name"] = name
        envelope = await self._call("POST", _SEEDANCE2.upload_path, body)
        data = envelope.data if isinstance(envelope.data, dict) else {}
        info = AssetInfo.model_validate({"assetType": asset_type, "url": url, "name": name, **data})
        self._note(info, "seedance2", action="uploaded", made_from=self._made_from(info, [url]))
        return info

    async def _url(self, value: Any, field: str) -> str:
        """A URL as given, or the URL a Task / Path / bytes resolves to."""
        if isinstance(value, str):
            return value
        from ._inputs import input_url  # _inputs imports the Task module; keep this one light

        return await input_url(self._ctx, value, field)

    async def get(self, asset_id: str) -> AssetInfo:
        """Read a seedance 2.0 asset's details and review status.

        Args:
            asset_id: The asset's id (``asset-...``).

        Returns:
            The asset as the library reports it now.

        Raises:
            AssetError: The library refused (for example an unknown or deleted id).
            APIConnectionError: No answer from the service.
        """
        path = (_SEEDANCE2.item_path or "").format(assetId=asset_id)
        envelope = await self._call("GET", path, asset_id=asset_id)
        info = AssetInfo.model_validate({"assetId": asset_id, **(envelope.data or {})})
        self._note(info, "seedance2")
        return info

    async def delete(self, asset_id: str) -> str | None:
        """Delete a seedance 2.0 asset; its id is invalid for good afterwards.

        Args:
            asset_id: The asset's id (``asset-...``).

        Returns:
            The library's ``msg``, if it sent one.

        Raises:
            AssetError: The library refused the deletion.
            APIConnectionError: No answer from the service.
        """
        path = (_SEEDANCE2.item_path or "").format(assetId=asset_id)
        envelope = await self._call("DELETE", path, asset_id=asset_id)
        self._note(AssetInfo(assetId=asset_id, status=DELETED), "seedance2", action="deleted")
        return envelope.msg

    def _batch(self, data: Any, library: str, action: str, sent: Sequence[str] = ()) -> AssetBatch:
        payload = data if isinstance(data, dict) else {}
        items = [AssetInfo.model_validate(item) for item in payload.get("items") or []]
        for info in items:
            made_from = self._made_from(info, sent) if sent else ""
            self._note(info, library, action=action, made_from=made_from)
        failed = [AssetFailure.model_validate(item) for item in payload.get("failedItems") or []]
        return AssetBatch(items=items, failed_items=failed)

    async def sd2_upload(
        self,
        *,
        image_urls: Sequence[Any] = (),
        video_urls: Sequence[Any] = (),
        audio_urls: Sequence[Any] = (),
    ) -> AssetBatch:
        """Submit media to the sd2 manxue library in one batch; items start ``submitted``.

        At least one list must be non-empty. Each entry is a publicly reachable ``http(s)``
        URL, or a completed ``Task``, a ``Path`` or ``bytes`` (turned into a URL).

        Args:
            image_urls: Images to add.
            video_urls: Videos to add.
            audio_urls: Audio files to add.

        Returns:
            The batch: ``items`` taken (with their ``assetId``) and ``failed_items``.

        Raises:
            RequestValidationError: Every list is empty, or a URL breaks the public-address
                rule (nothing sent).
            AssetError: The library refused the whole request.
            APIConnectionError: No answer from the service.
        """
        body = {
            "imageUrls": [await self._url(u, f"imageUrls[{i}]") for i, u in enumerate(image_urls)],
            "videoUrls": [await self._url(u, f"videoUrls[{i}]") for i, u in enumerate(video_urls)],
            "audioUrls": [await self._url(u, f"audioUrls[{i}]") for i, u in enumerate(audio_urls)],
        }
        envelope = await self._call("POST", _SD2.upload_path, body)
        sent = [url for urls in body.values() for url in urls]
        return self._batch(envelope.data, "sd2", "uploaded", sent)

    async def sd2_status(self, asset_ids: Iterable[str]) -> AssetBatch:
        """Read the review status of sd2 manxue assets in one request.

        It is a read-only POST, so it is retried like a GET.

        Args:
            asset_ids: The assets' ids (at least one).

        Returns:
            The batch: one item per asset the library knows, with its ``status``.

        Raises:
            RequestValidationError: No id, or an empty one (nothing sent).
            AssetError: The library refused the request.
            APIConnectionError: No answer from the service.
        """
        envelope = await self._call("POST", _SD2.status_path or "", {"assetIds": list(asset_ids)})
        return self._batch(envelope.data, "sd2", "status")

    def _library_of(self, asset_id: str) -> str:
        known = self._ctx.asset_library.get(asset_id)
        if known is not None:
            return known
        return library_for_id(asset_id).id

    async def submit(self, library: str, body: dict[str, Any]) -> AssetBatch:
        """Send one upload body in a library's own shape (what the Assets panel sends).

        Args:
            library: ``"seedance2"`` or ``"sd2"``.
            body: For sd2, ``imageUrls`` / ``videoUrls`` / ``audioUrls`` lists; for
                seedance 2.0, ``url``, ``assetType`` and optionally ``name``.

        Returns:
            The batch: sd2's items and failed items, or seedance 2.0's one item.

        Raises:
            KeyError: ``library`` is not an asset library, or a seedance 2.0 body lacks
                ``url`` or ``assetType``.
            RequestValidationError: The body breaks a rule (nothing sent).
            AssetError: The library refused the upload.
            APIConnectionError: No answer from the service.
        """
        lib = ASSET_LIBRARIES[library]
        if lib.url_lists:
            return await self.sd2_upload(
                image_urls=body.get("imageUrls") or (),
                video_urls=body.get("videoUrls") or (),
                audio_urls=body.get("audioUrls") or (),
            )
        info = await self.upload(str(body["url"]), str(body["assetType"]), name=body.get("name"))
        return AssetBatch(items=[info])

    async def status_of(self, library: str, asset_ids: Sequence[str]) -> AssetBatch:
        """Read the review status of assets of one library.

        One batch request where the library has a status endpoint (sd2), else one request
        per asset (seedance 2.0).

        Args:
            library: ``"seedance2"`` or ``"sd2"``.
            asset_ids: The assets' ids; none sends nothing.

        Returns:
            The batch of the assets' current details.

        Raises:
            KeyError: ``library`` is not an asset library.
            AssetError: The library refused a request.
            APIConnectionError: No answer from the service.
        """
        if not asset_ids:
            return AssetBatch(items=[])
        if ASSET_LIBRARIES[library].status_path is not None:
            return await self.sd2_status(asset_ids)
        return AssetBatch(items=[await self.get(asset_id) for asset_id in asset_ids])

    async def wait_active(
        self,
        asset_ids: Iterable[str],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - a polling deadline, not an I/O timeout
        poll_interval: float | None = None,
        on_update: Callable[[AssetInfo | AssetFailure], object] | None = None,
    ) -> dict[str, AssetInfo]:
        """Poll until every asset is ``Active``, in either library.

        Polls every 3 s (divided by the built-in emulator's speed) unless ``poll_interval``
        says otherwise; the spec gives no interval for assets. sd2 ids are read in one batch,
        seedance 2.0 ids one by one; an id this client never saw belongs to seedance 2.0 when
        it starts with ``asset-``.

        Args:
            asset_ids: The assets to wait for (repeats are ignored).
            timeout: Seconds to wait at most; by default 600 s (divided by the emulator's
                speed).
            poll_interval: Seconds between polls; None: 3 s over the service speed.
            on_update: Called with an asset's ``AssetInfo`` when its status is first read and
                each time it changes, and with the ``AssetFailure`` of an id the library
                lists as failed, before the wait raises for it.

        Returns:
            The last details of each asset, by id, in the order given.

        Raises:
            AssetNotUsableError: An asset is ``Failed``, was deleted, or the library lists it
                as failed.
            AssetTimeoutError: Some asset was not ``Active`` by the deadline.
            AssetError: A library refused a status request.
            APIConnectionError: No answer from the service.
        """
        ids = list(dict.fromkeys(asset_ids))
        speed = self._ctx.core.speed
        limit = ASSET_DEADLINE_S / speed if timeout is None else timeout
        deadline = self._ctx.clock() + limit
        latest: dict[str, AssetInfo] = {}
        while True:
            pending = [i for i in ids if i not in latest or latest[i].status != ASSET_ACTIVE]
            self._raise_if_unusable(pending, latest, self._ctx.asset_status)
            before = {i: latest[i].status for i in pending if i in latest}
            failures = await self._refresh(pending, latest)
            _report(on_update, [latest[i] for i in pending if i in latest], before, failures)
            if failures:
                raise AssetNotUsableError(str(failures[0].assetId), ASSET_FAILED)
            self._raise_if_unusable(pending, latest, {})
            if all(i in latest and latest[i].status == ASSET_ACTIVE for i in ids):
                return {i: latest[i] for i in ids}
            remaining = deadline - self._ctx.clock()
            if remaining <= 0:
                waiting = [i for i in ids if i not in latest or latest[i].status != ASSET_ACTIVE]
                raise AssetTimeoutError(waiting, limit)
            interval = (
                ASSET_POLL_S / self._ctx.core.speed if poll_interval is None else poll_interval
            )
            await self._ctx.sleep(min(interval, remaining))

    @staticmethod
    def _raise_if_unusable(
        pending: list[str], latest: dict[str, AssetInfo], known: Mapping[str, str]
    ) -> None:
        """Raise for the first pending asset known as failed or deleted, or seen ``Failed``."""
        for asset_id in pending:
            status = known.get(asset_id)
            if status in (ASSET_FAILED, DELETED):
                raise AssetNotUsableError(asset_id, status or "")
            seen = latest.get(asset_id)
            if seen is not None and seen.status == ASSET_FAILED:
                raise AssetNotUsableError(asset_id, ASSET_FAILED)

    async def _refresh(
        self, pending: list[str], latest: dict[str, AssetInfo]
    ) -> list[AssetFailure]:
        """Fetch each pending asset's status: sd2 ids in one batch, seedance 2.0 ids one by one.

        Returns the batch's failed items that name a pending id."""
        failures: list[AssetFailure] = []
        sd2 = [i for i in pending if self._library_of(i) == "sd2"]
        if sd2:
            batch = await self.sd2_status(sd2)
            for info in batch.items:
                latest[info.assetId] = info
            failures = [f for f in batch.failed_items if f.assetId in sd2]
        for asset_id in pending:
            if self._library_of(asset_id) == "seedance2":
                latest[asset_id] = await self.get(asset_id)
        return failures

    async def host_file(self, data: bytes, *, name: str, content_type: str) -> str:
        """Demo mode only: store a file on the built-in emulator and return the URL it serves.

        The real service has no upload endpoint (it fetches media from a public URL). The
        returned URL is accepted by the emulator's asset libraries like any public URL.

        Args:
            data: The file's bytes.
            name: Its file name (kept in the URL).
            content_type: Its MIME type, e.g. ``image/png``.

        Returns:
            The URL the emulator serves the file at.

        Raises:
            APIError: The service has no upload endpoint (404 on the real service).
            AssetError: The emulator refused the file.
        """
        core = self._ctx.core
        url = core.url("base", f"{UPLOAD_PATH}?{urlencode({'name': name})}")
        headers = core._headers(url, has_body=False, own=True)
        headers["Content-Type"] = content_type
        request = core.http.build_request("POST", url, content=data, headers=headers)
        response = await core._send(request, stream=False)
        envelope = AssetEnvelope.model_validate(response.json())
        hosted = envelope.data.get("url") if isinstance(envelope.data, dict) else None
        if not envelope.ok or not isinstance(hosted, str):
            raise AssetError(envelope.code, envelope.msg, path=UPLOAD_PATH)
        return hosted

    async def fetch_media(
        self,
        url: str,
        *,
        max_bytes: int,
        timeout: float = 5.0,  # noqa: ASYNC109 - the per-request HTTP timeout, not a deadline
    ) -> bytes:
        """Download an asset's media for a preview: one try, no retries.

        Auth is sent only to the service's own origin. Redirects are followed at most 3
        times, each target checked first by the rule of the asset libraries (no loopback,
        private, link-local or local names; the service's own origins excepted), so a
        public URL cannot lead the kernel to an internal address.

        Args:
            url: The media's URL.
            max_bytes: The largest file to accept; a larger one stops the download.
            timeout: Seconds for the HTTP request.

        Returns:
            The file's bytes.

        Raises:
            ValueError: A URL breaks the public-address rule, or the file is larger than
                ``max_bytes`` (the rest is not downloaded).
            APIConnectionError: Unreachable, an HTTP error, or more than 3 redirects.
        """
        settings = self._ctx.core.settings
        own = origins([settings.base_url, settings.text_base_url])
        try:
            async with httpx2.AsyncClient(
                transport=_hooks.local_transport(url),  # an in-process emulator's file
                timeout=timeout,
                follow_redirects=False,
            ) as http:
                for _hop in range(MAX_REDIRECTS + 1):
                    found = await self._fetch_hop(http, url, own, max_bytes)
                    if isinstance(found, bytes):
                        return found
                    url = found
        except httpx2.HTTPError as exc:
            raise APIConnectionError(f"GET {url} failed: {type(exc).__name__}: {exc}") from exc
        raise APIConnectionError(f"GET {url}: more than {MAX_REDIRECTS} redirects")

    async def _fetch_hop(
        self, http: httpx2.AsyncClient, url: str, own: frozenset[str], max_bytes: int
    ) -> bytes | str:
        """The body of ``url``, or the URL it redirects to (checked before any request)."""
        reason = not_public_reason(url, own)
        if reason is not None:
            raise ValueError(f"{url}: not fetched, {reason}")
        headers = self._ctx.core._headers(url, has_body=False, own=False)
        async with http.stream("GET", url, headers=headers) as response:
            if response.is_redirect:
                return str(response.url.join(response.headers.get("location", "")))
            response.raise_for_status()
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    raise ValueError(f"{url}: larger than {max_bytes} bytes")
                chunks.append(chunk)
        return b"".join(chunks)


def _report(
    on_update: Callable[[AssetInfo | AssetFailure], object] | None,
    read: list[AssetInfo],
    before: Mapping[str, str | None],
    failures: list[AssetFailure],
) -> None:
    """Tell ``on_update`` of each status read for the first time or changed, then failures."""
    if on_update is None:
        return
    for info in read:
        if info.assetId not in before or before[info.assetId] != info.status:
            on_update(info)
    for failure in failures:
        on_update(failure)
