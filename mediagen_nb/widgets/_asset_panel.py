"""``AssetPanel``: submit reference media to either asset library and watch the review.

Seedance 2.0 takes one URL per upload (``assetType`` + ``url`` + optional ``name``); each line
of the URL box becomes one upload. SD2 takes image, video and audio URL lists in one upload.
Review status is polled in a background task and shown live; ``Active`` assets are pushed
to ``session.active_assets`` so the reference fields of the other panels offer them.

Decisions where the spec is silent: status is polled every ``ASSET_POLL_S`` seconds divided
by the emulator speed (as the client's ``wait_active``); the SD2 library has no delete
endpoint, so its rows offer "Forget" (local only: the asset stays in the library); with a
seedance 2.0 ``name`` and several URLs, the names get " (1)", " (2)"... so rows stay
distinguishable. "Refresh" also lists the assets the history knows for this service.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

import ipywidgets as widgets

from mediagen_nb.catalog import (
    ASSET_ACTIVE,
    ASSET_FAILED,
    ASSET_LIBRARIES,
    ASSET_PENDING_STATES,
    asset_uri,
)
from mediagen_nb.types import Problem, RequestValidationError, errors_only, validate_request
from mediagen_nb.widgets._base import Panel
from mediagen_nb.widgets._chat_options import split_lines
from mediagen_nb.widgets._copy import CopyButton
from mediagen_nb.widgets._session import ActiveAsset, Session

ASSET_POLL_S = 3.0
_SEEDANCE2 = ASSET_LIBRARIES["seedance2"]
_SD2 = ASSET_LIBRARIES["sd2"]


@dataclass(frozen=True)
class AssetRow:
    """One asset the panel lists."""

    asset_id: str
    library: str
    """``seedance2`` or ``sd2``."""
    asset_type: str = "Image"
    name: str = ""
    url: str = ""
    status: str = "Processing"

    @property
    def uri(self) -> str:
        """``asset://{assetId}`` for generation requests."""
        return asset_uri(self.asset_id)

    @property
    def pending(self) -> bool:
        """True while the review is still running."""
        return self.status in ASSET_PENDING_STATES


def _library_of(asset_id: str) -> str:
    return "seedance2" if asset_id.startswith("asset-") else "sd2"


class _RowView:
    """Widgets of one listed asset: label, copy, delete with confirmation."""

    def __init__(self, panel: AssetPanel, row: AssetRow) -> None:
        self.label = widgets.HTML()
        self.copy = CopyButton(row.uri, label="Copy asset://id")
        verb = "Delete" if row.library == "seedance2" else "Forget"
        self.delete = widgets.Button(description=verb, icon="trash")
        self.confirm_text = widgets.HTML()
        self.yes = widgets.Button(description=f"Yes, {verb.lower()}", button_style="danger")
        self.no = widgets.Button(description="No")
        self.confirm = widgets.HBox([self.confirm_text, self.yes, self.no])
        self.confirm.layout.display = "none"
        self.box = widgets.VBox([widgets.HBox([self.label, self.copy, self.delete]), self.confirm])
        self.box.add_class("mediagen-asset-row")
        asset_id = row.asset_id
        self.delete.on_click(panel.guard(lambda _b: panel.delete(asset_id)))
        self.yes.on_click(panel.guard(lambda _b: panel.delete(asset_id, confirm=True)))
        self.no.on_click(panel.guard(lambda _b: panel.cancel_delete(asset_id)))
        self.copy.on_copy(lambda button: panel.copied(button.text))
        self.show(row)

    def show(self, row: AssetRow) -> None:
        name = f"{_esc(row.name)} · " if row.name else ""
        self.label.value = (
            f"<span class='mediagen-asset' data-status='{_esc(row.status)}'>"
            f"<b>{_esc(row.status)}</b> · {name}{_esc(row.asset_type)} · "
            f"<code>{_esc(row.asset_id)}</code> <small>{_esc(row.url)}</small></span>"
        )
        self.copy.layout.display = "" if row.status == ASSET_ACTIVE else "none"


class AssetPanel(Panel):
    """Asset libraries: submit URLs, watch the review, list, delete, copy ``asset://id``.

    Programmatic use: ``submit()`` returns the upload task; ``delete(id)`` asks for
    confirmation and ``delete(id, confirm=True)`` deletes; ``assets`` lists ``AssetRow``.
    """

    title = "Assets"

    def __init__(self, *, session: Session | None = None, poll_interval: float | None = None):
        super().__init__(session=session)
        self.add_class("mediagen-asset-panel")
        self.poll_interval = poll_interval
        """Seconds between status polls; None: ``ASSET_POLL_S`` over the service speed."""
        self.library = widgets.ToggleButtons(
            options=[
                (lib.title.removesuffix(" asset library"), lib.id)
                for lib in ASSET_LIBRARIES.values()
            ],
            description="Library",
        )
        self.asset_type = widgets.Dropdown(options=_SEEDANCE2.asset_types, description="Type")
        self.name = widgets.Text(description="Name", placeholder="optional label")
        self.urls = widgets.Textarea(placeholder="media URLs, one per line (one asset each)")
        self.image_urls = widgets.Textarea(placeholder="image URLs, one per line")
        self.video_urls = widgets.Textarea(placeholder="video URLs, one per line")
        self.audio_urls = widgets.Textarea(placeholder="audio URLs, one per line")
        self.problem_area = widgets.HTML()
        self.submit_button = widgets.Button(description="Submit for review", button_style="primary")
        self.refresh_button = widgets.Button(description="Refresh", icon="refresh")
        self.status = widgets.HTML()
        self.clipboard = widgets.Text(description="Copied", disabled=True)
        self.rows_box = widgets.VBox()
        self.urls.add_class("mediagen-asset-urls")
        self.submit_button.add_class("mediagen-asset-submit")
        self.clipboard.add_class("mediagen-asset-clipboard")
        self.seedance_box = widgets.VBox([self.asset_type, self.name, self.urls])
        self.sd2_box = widgets.VBox([self.image_urls, self.video_urls, self.audio_urls])
        self.children = [
            self.library,
            self.seedance_box,
            self.sd2_box,
            self.problem_area,
            widgets.HBox([self.submit_button, self.refresh_button]),
            self.status,
            self.rows_box,
            self.clipboard,
            self.error_area,
        ]
        self._rows: dict[str, AssetRow] = {}
        self._views: dict[str, _RowView] = {}
        self._watcher: asyncio.Task[None] | None = None
        self.submit_button.on_click(self.guard(lambda _b: self.submit()))
        self.refresh_button.on_click(self.guard(lambda _b: self.refresh()))
        for control in (self.library, self.asset_type, self.name, self.urls, *self._sd2_boxes):
            control.observe(self.guard(self._revalidate), names="value")
        self._revalidate()

    @property
    def _sd2_boxes(self) -> tuple[widgets.Textarea, ...]:
        return (self.image_urls, self.video_urls, self.audio_urls)

    # --- form -----------------------------------------------------------------------------

    def bodies(self) -> list[tuple[str, dict[str, Any]]]:
        """(endpoint path, body) of each upload Submit would send."""
        if self.library.value == "sd2":
            body = {
                "imageUrls": list(split_lines(self.image_urls.value)),
                "videoUrls": list(split_lines(self.video_urls.value)),
                "audioUrls": list(split_lines(self.audio_urls.value)),
            }
            return [(_SD2.upload_path, body)]
        urls = split_lines(self.urls.value)
        name = self.name.value.strip()
        out: list[tuple[str, dict[str, Any]]] = []
        for index, url in enumerate(urls, start=1):
            upload: dict[str, Any] = {"assetType": self.asset_type.value, "url": url}
            if name:
                upload["name"] = name if len(urls) == 1 else f"{name} ({index})"
            out.append((_SEEDANCE2.upload_path, upload))
        return out

    def problems(self) -> list[Problem]:
        """Problems of the uploads Submit would send (seedance 2.0: by line)."""
        bodies = self.bodies()
        if not bodies:
            return [Problem("url", "enter at least one URL")]
        own = self.session.service_origins
        if len(bodies) == 1:
            return validate_request(*bodies[0], service_origins=own)
        return [
            Problem(f"line {line}: {p.field}", p.rule, p.severity)
            for line, (path, body) in enumerate(bodies, start=1)
            for p in validate_request(path, body, service_origins=own)
        ]

    def _revalidate(self, _change: object = None) -> None:
        sd2 = self.library.value == "sd2"
        self.sd2_box.layout.display = "" if sd2 else "none"
        self.seedance_box.layout.display = "none" if sd2 else ""
        problems = self.problems()
        self.problem_area.value = "<br>".join(
            f"<span class='mediagen-{p.severity}'>{_esc(str(p))}</span>" for p in problems
        )
        errors = errors_only(problems)
        self.submit_button.disabled = bool(errors)
        self.submit_button.tooltip = "; ".join(str(p) for p in errors)

    # --- actions ----------------------------------------------------------------------------

    @property
    def assets(self) -> list[AssetRow]:
        """Listed assets, oldest first."""
        return list(self._rows.values())

    def submit(self) -> asyncio.Task[list[AssetRow]]:
        """Upload the form's URLs; raises ``RequestValidationError`` (nothing sent) if invalid."""
        errors = errors_only(self.problems())
        if errors:
            raise RequestValidationError(errors)
        bodies = self.bodies()
        library = self.library.value
        with self.hold_sync():
            for box in (self.urls, self.name, *self._sd2_boxes):
                box.value = ""
        return self.spawn(self._submit(library, bodies), name="asset upload")

    async def _submit(
        self, library: str, bodies: list[tuple[str, dict[str, Any]]]
    ) -> list[AssetRow]:
        assets = self.session.client.assets
        added: list[AssetRow] = []
        if library == "seedance2":
            for _path, body in bodies:
                info = await assets.upload(body["url"], body["assetType"], name=body.get("name"))
                row = AssetRow(
                    asset_id=info.assetId,
                    library="seedance2",
                    asset_type=body["assetType"],
                    name=body.get("name") or "",
                    url=body["url"],
                    status=info.status or "Processing",
                )
                added.append(self._put(row))
        else:
            body = bodies[0][1]
            batch = await assets.sd2_upload(
                image_urls=body["imageUrls"],
                video_urls=body["videoUrls"],
                audio_urls=body["audioUrls"],
            )
            for info in batch.items:
                row = AssetRow(
                    asset_id=info.assetId,
                    library="sd2",
                    asset_type=info.assetType or "Image",
                    url=info.originalUrl or "",
                    status=info.status or "submitted",
                )
                added.append(self._put(row))
            for failed in batch.failed_items:
                self.show_error(f"not accepted by the SD2 library: {failed}")
        self.status.value = f"submitted {len(added)} asset(s); review running"
        self._ensure_watcher()
        return added

    def refresh(self) -> asyncio.Task[None]:
        """List the assets the history knows for this service and re-check pending ones."""
        return self.spawn(self._refresh(), name="asset refresh")

    async def _refresh(self) -> None:
        from mediagen_nb.history import history

        client = self.session.client
        service = str(client.service_id or client.base_url or "").rstrip("/")
        frame = history(kind="asset")
        for record in reversed(frame.to_dict("records")):
            asset_id = record["task_id"]
            same = str(record.get("service") or "").rstrip("/") == service
            if not same or record["status"] in ("deleted", "failed") or asset_id in self._rows:
                continue
            params = record.get("parameters") or {}
            self._put(
                AssetRow(
                    asset_id=asset_id,
                    library=str(params.get("library") or _library_of(asset_id)),
                    asset_type=str(params.get("assetType") or "Image"),
                    name=str(params.get("name") or ""),
                    url=str(params.get("url") or ""),
                    status=str(record["status"]),
                )
            )
        await self._poll_once(list(self._rows.values()))
        self._ensure_watcher()

    def delete(self, asset_id: str, confirm: bool = False) -> asyncio.Task[None] | None:
        """Without ``confirm``: ask in the row. With it: delete (seedance 2.0) or forget (sd2)."""
        view = self._views[asset_id]
        row = self._rows[asset_id]
        if not confirm:
            what = (
                "Delete for good? The id becomes invalid"
                if row.library == "seedance2"
                else ("Forget? The SD2 library has no delete; the asset stays there")
            )
            view.confirm_text.value = f"<b>{what}.</b>"
            view.confirm.layout.display = ""
            return None
        view.confirm.layout.display = "none"
        return self.spawn(self._delete(row), name="asset delete")

    def cancel_delete(self, asset_id: str) -> None:
        """Hide the confirmation of a row."""
        self._views[asset_id].confirm.layout.display = "none"

    async def _delete(self, row: AssetRow) -> None:
        if row.library == "seedance2":
            msg = await self.session.client.assets.delete(row.asset_id)
            self.status.value = _esc(f"deleted {row.asset_id}: {msg or 'ok'}")
        self._rows.pop(row.asset_id, None)
        self._views.pop(row.asset_id, None)
        self.session.remove_active_asset(row.asset_id)
        self.rows_box.children = [v.box for v in self._views.values()]

    def copy_uri(self, asset_id: str) -> str:
        """The ``asset://id`` of a listed asset (what the row's Copy button copies)."""
        return self._views[asset_id].copy.click()

    def copied(self, text: str) -> None:
        """Show what was copied (the kernel side of a Copy click)."""
        self.clipboard.value = text

    # --- review status ----------------------------------------------------------------------

    def _put(self, row: AssetRow) -> AssetRow:
        self._rows[row.asset_id] = row
        view = self._views.get(row.asset_id)
        if view is None:
            self._views[row.asset_id] = _RowView(self, row)
            self.rows_box.children = [v.box for v in self._views.values()]
        else:
            view.show(row)
        if row.status == ASSET_ACTIVE:
            self.session.add_active_asset(
                ActiveAsset(row.asset_id, row.name, row.asset_type, row.library)
            )
        else:
            self.session.remove_active_asset(row.asset_id)
        return row

    def _ensure_watcher(self) -> None:
        if (self._watcher is None or self._watcher.done()) and self._pending():
            self._watcher = self.spawn(self._watch(), name="asset review")

    def _pending(self) -> list[AssetRow]:
        return [row for row in self._rows.values() if row.pending]

    async def _watch(self) -> None:
        while pending := self._pending():
            client = self.session.client
            interval = self.poll_interval
            await asyncio.sleep(ASSET_POLL_S / client.speed if interval is None else interval)
            await self._poll_once(pending)

    async def _poll_once(self, rows: list[AssetRow]) -> None:
        assets = self.session.client.assets
        sd2 = [r.asset_id for r in rows if r.library == "sd2" and r.asset_id in self._rows]
        if sd2:
            for info in (await assets.sd2_status(sd2)).items:
                row = self._rows.get(info.assetId)
                if row is not None and info.status:
                    self._put(replace(row, status=info.status))
        for row in rows:
            if row.library == "seedance2" and row.asset_id in self._rows:
                info = await assets.get(row.asset_id)
                current = self._rows.get(row.asset_id)
                if current is not None:
                    self._put(replace(current, status=info.status or current.status))
        done = [r for r in self._rows.values() if r.status in (ASSET_ACTIVE, ASSET_FAILED)]
        self.status.value = f"{len(done)} reviewed, {len(self._pending())} in review"

    def text_summary(self) -> str:
        """Listed assets as plain text."""
        lines = [f"{row.status:10} {row.uri} {row.name or row.url}" for row in self.assets]
        return "\n".join([super().text_summary(), *lines])


def _esc(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;")
    )
