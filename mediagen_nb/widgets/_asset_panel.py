"""``AssetPanel``: one anywidget to upload reference media to either asset library, watch the
review, copy ``asset://id`` and delete (front end: ``static/assets.js`` and ``assets.css``)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import traitlets

from mediagen_nb._platform import off_loop
from mediagen_nb.catalog._assets import ASSET_FAILED
from mediagen_nb.types import AssetInfo, RequestValidationError
from mediagen_nb.types._problem import errors_only
from mediagen_nb.widgets._asset_form import (
    DEFAULT_VALUES,
    NEEDS_PUBLIC_URL,
    AssetRow,
    asset_library,
    bodies,
    failed_reason,
    file_problems,
    libraries_for_front_end,
    problems,
    rows_from_history,
    submitted_text,
    thumb_data_url,
    type_of,
)
from mediagen_nb.widgets._asset_review import ReviewFollower, Update, after_review, progress_text
from mediagen_nb.widgets._base import WidgetPanel
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._session import ActiveAsset, Session

__all__ = ["ASSET_POLL_S", "AssetPanel", "AssetRow"]

ASSET_POLL_S = 3.0
MAX_THUMB_SOURCE = 8 * 1024 * 1024
"""Largest image the kernel downloads to make a URL asset's thumbnail."""
THUMB_FETCHES = 4
"""At most this many thumbnail downloads at once (a refresh may list many assets)."""


class AssetPanel(WidgetPanel):
    """Asset libraries: upload by file or URL, watch the review, copy ``asset://id``, delete.

    Programmatic use: set ``values`` (``library``, ``asset_type``, ``name``, ``url``) and call
    ``submit()``; ``upload_file(data, name, content_type)``; ``delete(id)`` asks and
    ``delete(id, confirm=True)`` deletes; ``copy_uri(id)``; ``assets`` lists ``AssetRow``.

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        poll_interval: Seconds between review polls; None: the default over the service's
            speed.
        show_mode: Show the line saying demo mode or the connected service.
    """

    title = "Assets"
    _esm = esm("assets.js")
    _css = css("assets.css")

    values = traitlets.Dict(dict(DEFAULT_VALUES)).tag(sync=True)
    """The form: ``library`` (an id of ``ASSET_LIBRARIES``), ``asset_type``, ``name``, ``url``."""
    libraries: traitlets.List[dict[str, Any]] = traitlets.List(libraries_for_front_end()).tag(
        sync=True
    )
    """The libraries offered: ``value``, ``label``, ``types``, ``names`` (takes a name)."""
    problems: traitlets.List[dict[str, str]] = traitlets.List([]).tag(sync=True)
    """Errors of the form as ``{"field", "message"}`` (shown once the user touched it)."""
    hint = traitlets.Unicode("").tag(sync=True)
    """Neutral text saying what is missing before Upload can run."""
    can_submit = traitlets.Bool(False).tag(sync=True)
    hosting_note = traitlets.Unicode("").tag(sync=True)
    rows: traitlets.List[dict[str, Any]] = traitlets.List([]).tag(sync=True)
    """Listed assets, newest first, as the front end renders them."""
    status_text = traitlets.Unicode("").tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)

    def __init__(
        self,
        *,
        session: Session | None = None,
        poll_interval: float | None = None,
        show_mode: bool = True,
    ):
        self._rows: dict[str, AssetRow] = {}
        super().__init__(session=session, show_mode=show_mode)
        self.poll_interval = poll_interval
        """Seconds between status polls; None: ``ASSET_POLL_S`` over the service speed."""
        self.copied = ""
        """The last text a Copy click copied (kernel side)."""
        self._recheck: set[str] = set()
        self._review = ReviewFollower(
            lambda coro: self.spawn(coro, name="asset review"),
            self._on_review,
            self._unusable,
            self._say_progress,
        )
        self._refused = 0
        self._fetching: asyncio.Semaphore | None = None
        self.on_action("upload", self._on_upload)
        self.on_action("refresh", lambda _m: self.refresh())
        self.on_action("delete", lambda m: self.delete(str(m.get("id"))))
        self.on_action("confirm-delete", lambda m: self.delete(str(m.get("id")), confirm=True))
        self.on_action("cancel-delete", lambda m: self.cancel_delete(str(m.get("id"))))
        self.on_action("copied", lambda m: self.copy_uri(str(m.get("id"))))
        self.observe(self.guard(self._revalidate), names="values")
        self._revalidate()

    @property
    def hosting(self) -> bool:
        """Whether a file can be uploaded (demo mode: the built-in emulator hosts it)."""
        return self.session.demo

    def _on_custom_msg(self, widget: Any, content: Any, buffers: Any) -> None:
        # a chosen file arrives as the message's first buffer; actions see it as "file"
        if isinstance(content, dict) and buffers:
            content = {**content, "file": bytes(buffers[0])}
        super()._on_custom_msg(widget, content, buffers)

    # --- form -----------------------------------------------------------------------------

    def _session_changed(self, session: Session) -> None:
        super()._session_changed(session)
        self.hosting_note = "" if session.demo else NEEDS_PUBLIC_URL
        self._revalidate()

    def _revalidate(self, _change: object = None) -> None:
        values = {**DEFAULT_VALUES, **self.values}
        errors = errors_only(problems(values, **self._checks()))
        with self.hold_sync():
            self.problems = [{"field": p.field, "message": p.rule} for p in errors]
            self.can_submit = not errors
            if not values["url"].strip():
                self.hint = (
                    "Choose a file or paste a URL to upload"
                    if self.hosting
                    else "Paste a public URL to upload"
                )
            else:
                self.hint = "; ".join(str(p) for p in errors)

    def _checks(self) -> dict[str, Any]:
        return {"service_origins": self.session.service_origins}

    def bodies(self) -> list[tuple[str, dict[str, Any]]]:
        """(endpoint path, body) of each upload ``submit()`` would send."""
        return bodies({**DEFAULT_VALUES, **self.values})

    def set_values(self, **changes: str) -> None:
        """Change some form values (what the front end does as the user types)."""
        self.values = {**DEFAULT_VALUES, **self.values, **changes}

    # --- actions ----------------------------------------------------------------------------

    @property
    def assets(self) -> list[AssetRow]:
        """Listed assets, oldest first."""
        return list(self._rows.values())

    def _on_upload(self, message: dict[str, Any]) -> None:
        # The form as the browser shows it comes with the action: a value typed just before
        # the click may not have reached the kernel yet (marimo sends trait changes later).
        shown = message.get("values")
        if isinstance(shown, dict):
            self.set_values(**{k: str(v) for k, v in shown.items() if k in DEFAULT_VALUES})
        data = message.get("file")
        if isinstance(data, bytes):
            self.upload_file(data, str(message.get("name") or ""), str(message.get("type") or ""))
        else:
            self.submit()

    def submit(self) -> asyncio.Task[list[AssetRow]]:
        """Upload the form's URLs; raises ``RequestValidationError`` (nothing sent) if invalid."""
        values = {**DEFAULT_VALUES, **self.values}
        errors = errors_only(problems(values, **self._checks()))
        if errors:
            raise RequestValidationError(errors)
        found = bodies(values)
        self.values = {**values, "url": "", "name": ""}
        return self.spawn(self._submit(values["library"], found, {}), name="asset upload")

    def upload_file(
        self, data: bytes, name: str, content_type: str
    ) -> asyncio.Task[list[AssetRow]]:
        """Upload a file: stored on the emulator (demo mode), then submitted by its URL."""
        values = {**DEFAULT_VALUES, **self.values}
        library = values["library"]
        errors = file_problems(
            size=len(data), content_type=content_type, library=library, hosting=self.hosting
        )
        if errors:
            raise RequestValidationError(errors)
        asset_type = type_of(content_type) or "Image"
        self.values = {**values, "url": "", "name": "", "asset_type": asset_type}
        return self.spawn(
            self._upload_file(
                data, name, content_type, library=library, label=values["name"], kind=asset_type
            ),
            name="file upload",
        )

    async def _upload_file(
        self, data: bytes, name: str, content_type: str, *, library: str, label: str, kind: str
    ) -> list[AssetRow]:
        self.busy = True
        self.status_text = f"Sending {name or 'the file'} to the demo service…"
        try:
            url = await self.session.client.assets.host_file(
                data, name=name or "upload", content_type=content_type
            )
        finally:
            self.busy = False
        found = bodies({"library": library, "asset_type": kind, "name": label or name, "url": url})
        thumbs = {url: thumb_data_url(data)} if kind == "Image" else {}
        return await self._submit(library, found, thumbs)

    async def _submit(
        self, library_id: str, found: list[tuple[str, dict[str, Any]]], thumbs: dict[str, str]
    ) -> list[AssetRow]:
        from mediagen_nb.client import AssetError

        assets = self.session.client.assets
        lib = asset_library(library_id)
        added: list[AssetRow] = []
        refused_before = self._refused
        self.busy = True
        try:
            for _path, body in found:
                kind = str(body.get("assetType") or "Image")
                try:
                    batch = await assets.submit(lib.id, body)
                except AssetError as exc:
                    urls = body.get("url") or "\n".join(
                        u for v in body.values() if isinstance(v, list) for u in v
                    )
                    self._put(self._refusal(lib.id, kind, str(urls), exc.msg or str(exc)))
                    continue
                for info in batch.items:
                    url = info.url or info.originalUrl or str(body.get("url") or "")
                    row = AssetRow(
                        asset_id=info.assetId,
                        library=lib.id,
                        asset_type=info.assetType or kind,
                        name=str(body.get("name") or info.name or ""),
                        url=url,
                        status=info.status or lib.review_states[0],
                        thumb=thumbs.get(url, ""),
                    )
                    added.append(self._put(row))
                for failed in batch.failed_items:
                    reason = failed.reason or "the library gave no reason"
                    self._put(
                        self._refusal(lib.id, failed.assetType or kind, failed.url or "", reason)
                    )
        finally:
            self.busy = False
        self.status_text = submitted_text(len(added), self._refused - refused_before)
        for row in added:
            if row.asset_type == "Image" and not row.thumb and row.url:
                self.spawn(self._fetch_thumb(row.asset_id, row.url), name="thumbnail")
        self._follow_review()
        return added

    def _refusal(self, library: str, kind: str, url: str, reason: str) -> AssetRow:
        self._refused += 1
        return AssetRow(
            asset_id=f"refused-{self._refused}",
            library=library,
            asset_type=kind,
            url=url,
            status=ASSET_FAILED,
            reason=f"Upload refused: {reason}",
            refused=True,
        )

    async def _fetch_thumb(self, asset_id: str, url: str) -> None:
        """Make a row's thumbnail from its URL; silently none when it cannot be read."""
        from mediagen_nb.client import MediagenError

        if self._fetching is None:
            self._fetching = asyncio.Semaphore(THUMB_FETCHES)
        try:
            async with self._fetching:
                assets = self.session.client.assets
                data = await assets.fetch_media(url, max_bytes=MAX_THUMB_SOURCE)
            thumb = await off_loop(thumb_data_url, data)
        except (MediagenError, ValueError, OSError):
            return
        row = self._rows.get(asset_id)
        if row is not None and thumb:
            self._put(replace(row, thumb=thumb))

    def refresh(self) -> asyncio.Task[None]:
        """List the assets the history knows for this service and re-check pending ones."""
        return self.spawn(self._refresh(), name="asset refresh")

    async def _refresh(self) -> None:
        from mediagen_nb.history import history_records  # the rows without pandas (browser)

        client = self.session.client
        service = str(client.service_id or client.base_url or "").rstrip("/")
        records = history_records(kind="asset", warn=False)
        for row in rows_from_history(records, service):
            if row.asset_id in self._rows:
                continue
            self._put(row)
            if row.asset_type == "Image" and row.url:
                self.spawn(self._fetch_thumb(row.asset_id, row.url), name="thumbnail")
        # every listed asset is read once more (one may have failed or gone elsewhere)
        self._recheck.update(r.asset_id for r in self._rows.values() if r.status != ASSET_FAILED)
        self._follow_review()

    def delete(self, asset_id: str, confirm: bool = False) -> asyncio.Task[None] | None:
        """Without ``confirm``: ask in the row. With it: delete, or forget where the library
        has no delete."""
        row = self._row(asset_id)
        if not confirm:
            self._put(replace(row, confirming=True))
            return None
        self._put(replace(row, confirming=False))
        return self.spawn(self._delete(row), name="asset delete")

    def cancel_delete(self, asset_id: str) -> None:
        """Close a row's delete confirmation."""
        self._put(replace(self._row(asset_id), confirming=False))

    async def _delete(self, row: AssetRow) -> None:
        label = row.name or row.asset_id
        if row.refused:
            self.status_text = "Removed the refused upload from the list."
        elif asset_library(row.library).can_delete:
            await self.session.client.assets.delete(row.asset_id)
            self.status_text = f"Deleted {label}: its asset:// id no longer works."
        else:
            where = asset_library(row.library).short_title
            self.status_text = f"Forgot {label} here; it stays in the {where} library."
        self._drop(row.asset_id)
        self._follow_review()

    def _drop(self, asset_id: str) -> None:
        self._rows.pop(asset_id, None)
        self.session.remove_active_asset(asset_id)
        self._sync_rows()

    def copy_uri(self, asset_id: str) -> str:
        """The ``asset://id`` of a listed asset (what the row's Copy button copies)."""
        row = self._row(asset_id)
        if row.refused:
            raise ValueError(f"{asset_id}: the upload was refused, there is no asset id to copy")
        self.copied = row.uri
        return row.uri

    def _row(self, asset_id: str) -> AssetRow:
        row = self._rows.get(asset_id)
        if row is None:
            raise KeyError(f"no asset {asset_id!r} in the list")
        return row

    # --- review status ----------------------------------------------------------------------

    def _put(self, row: AssetRow) -> AssetRow:
        if row.status == ASSET_FAILED and not row.reason:
            row = replace(row, reason=failed_reason(None, demo=self.session.demo))
        self._rows[row.asset_id] = row
        if row.active:
            self.session.add_active_asset(
                ActiveAsset(row.asset_id, row.name, row.asset_type, row.library)
            )
        else:
            self.session.remove_active_asset(row.asset_id)
        self._sync_rows()
        return row

    def _sync_rows(self) -> None:
        self.rows = [row.to_front_end() for row in reversed(self._rows.values())]

    def _follow_review(self) -> None:
        """Follow the review of the pending rows, and of the rows to re-check once."""
        ids = [
            r.asset_id
            for r in self._rows.values()
            if not r.refused and (r.pending or r.asset_id in self._recheck)
        ]
        client = self.session.client
        interval = self.poll_interval
        every = ASSET_POLL_S / client.speed if interval is None else interval
        self._review.follow(client.assets, ids, every)

    def _on_review(self, update: Update) -> None:
        asset_id = str(update.assetId)
        self._recheck.discard(asset_id)
        row = self._rows.get(asset_id)
        changed = None if row is None else after_review(row, update, demo=self.session.demo)
        if changed is not None:
            self._put(changed)
            self._say_progress()

    def _unusable(self, asset_id: str, status: str) -> None:
        """An asset ``wait_active`` refused unread: known as failed, or deleted elsewhere."""
        self._recheck.discard(asset_id)
        row = self._rows.get(asset_id)
        if row is None or row.status == ASSET_FAILED:  # its row already says why
            return
        if status == ASSET_FAILED:
            self._on_review(AssetInfo(assetId=asset_id, status=ASSET_FAILED))
        else:
            self._drop(asset_id)

    def _say_progress(self) -> None:
        self.status_text = progress_text(list(self._rows.values()))

    def text_summary(self) -> str:
        """Listed assets as plain text."""
        lines = [f"{row.status:10} {row.uri} {row.name or row.url}" for row in self.assets]
        return "\n".join([super().text_summary(), *lines])
