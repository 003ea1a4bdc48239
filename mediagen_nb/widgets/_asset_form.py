"""The Assets panel's data: its form as request bodies, listed rows, reasons, file rules.

Plain functions, kept apart from the widget, so what a submit sends and what a row says can
be checked without one."""

from __future__ import annotations

import base64
from dataclasses import asdict, dataclass
from typing import Any

from mediagen_nb.catalog import asset_uri
from mediagen_nb.catalog._assets import (
    ASSET_ACTIVE,
    ASSET_LIBRARIES,
    ASSET_PENDING_STATES,
    AssetLibrary,
    library_for_id,
)
from mediagen_nb.types import Problem, validate_request
from mediagen_nb.widgets._chat_fields import split_lines
from mediagen_nb.widgets._preview import thumbnail

THUMB_PX = 96
"""Longest edge of an asset's thumbnail (WebP, a data URL in the row)."""
MAX_FILE_BYTES = 8 * 1024 * 1024
"""Largest file the panel takes: the browser sends it to the kernel in one comm message, and
the Jupyter server closes the websocket on a message above 10 MiB (tornado's default)."""
FIELD_LABELS = {
    "url": "URL",
    "assetType": "Type",
    "name": "Name",
    **{name: "URL" for lib in ASSET_LIBRARIES.values() for name in lib.url_lists.values()},
}
REVIEW_FAILED = (
    "The library's content review did not approve this media, so it cannot be used in "
    "generation. The service gives no further reason."
)
DEMO_REVIEW_RULE = "In demo mode the emulator fails every URL containing “reject” or “nsfw”."
NEEDS_PUBLIC_URL = (
    "Upload by file works in demo mode only. The service fetches each asset from a public "
    "URL: put the file somewhere public (object storage, a web server) and paste its URL."
)
DEFAULT_VALUES: dict[str, str] = {
    "library": next(iter(ASSET_LIBRARIES)),
    "asset_type": "Image",
    "name": "",
    "url": "",
}


@dataclass(frozen=True)
class AssetRow:
    """One asset the panel lists."""

    asset_id: str
    library: str
    """The id of its library in ``ASSET_LIBRARIES``."""
    asset_type: str = "Image"
    name: str = ""
    url: str = ""
    status: str = "Processing"
    reason: str = ""
    """Why the row is ``Failed`` (empty otherwise)."""
    thumb: str = ""
    """A small image thumbnail as a data URL (images only; empty until made)."""
    confirming: bool = False
    """The delete confirmation is open."""
    refused: bool = False
    """The service refused the upload: there is no asset id to copy or delete."""

    @property
    def uri(self) -> str:
        """``asset://{assetId}`` for generation requests."""
        return asset_uri(self.asset_id)

    @property
    def pending(self) -> bool:
        """True while the review is still running."""
        return self.status in ASSET_PENDING_STATES and not self.refused

    @property
    def active(self) -> bool:
        """Approved: usable in generation."""
        return self.status == ASSET_ACTIVE

    def to_front_end(self) -> dict[str, Any]:
        """The row as the front end renders it."""
        data = asdict(self)
        data["id"] = data.pop("asset_id")
        data["uri"] = "" if self.refused else self.uri
        data["library_title"] = library_title(self.library)
        data["delete_label"] = delete_label(self)
        data["delete_question"] = delete_question(self)
        return data


def asset_library(library_id: str | None) -> AssetLibrary:
    """The library of a form or row (the default one when the id is unknown)."""
    return ASSET_LIBRARIES.get(library_id or "") or next(iter(ASSET_LIBRARIES.values()))


def library_title(library_id: str) -> str:
    """The library's short name, as a row's chip shows it."""
    return asset_library(library_id).short_title


def libraries_for_front_end() -> list[dict[str, Any]]:
    """The libraries the form offers: id, name, asset types, whether an upload takes a name."""
    return [
        {
            "value": lib.id,
            "label": lib.short_title,
            "types": list(lib.asset_types),
            "names": lib.takes_names,
        }
        for lib in ASSET_LIBRARIES.values()
    ]


def delete_label(row: AssetRow) -> str:
    """The row's delete button: Delete where the library deletes, else Forget; Remove for a
    refused upload."""
    if row.refused:
        return "Remove"
    return "Delete" if asset_library(row.library).can_delete else "Forget"


def delete_question(row: AssetRow) -> str:
    """What the confirmation asks."""
    if row.refused:
        return "Remove this refused upload from the list?"
    lib = asset_library(row.library)
    if lib.can_delete:
        return "Delete for good? The id stops working, also in pending tasks that use it."
    return (
        f"Forget it here? The {lib.short_title} library has no delete: the asset stays in "
        "the library."
    )


def library_of(asset_id: str) -> str:
    """The library an id belongs to, from the libraries' id formats."""
    return library_for_id(asset_id).id


def type_of(content_type: str) -> str | None:
    """Asset type of a file's media type, or None when no library takes it."""
    major = content_type.split("/", maxsplit=1)[0]
    found = {"image": "Image", "video": "Video", "audio": "Audio"}.get(major)
    if found is None and content_type == "application/pdf":
        return "Document"
    return found


def failed_reason(reported: Any, *, demo: bool) -> str:
    """The text of a failed review: the service's own reason when it sent one."""
    if isinstance(reported, str) and reported.strip():
        return reported.strip()
    # the spec shows no reason for a failed review: say so, with the emulator's rule in demo
    return f"{REVIEW_FAILED} {DEMO_REVIEW_RULE}" if demo else REVIEW_FAILED


def reported_reason(info: Any) -> str | None:
    """A reason field the service may add to an asset (not in the spec), if any."""
    extra = getattr(info, "model_extra", None) or {}
    for key in ("reason", "failReason", "failedReason", "message", "msg"):
        value = extra.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def bodies(values: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """(endpoint path, body) of each upload the form would send."""
    urls = split_lines(values.get("url", ""))
    asset_type = values.get("asset_type", "Image")
    lib = asset_library(values.get("library"))
    if lib.url_lists:
        if not urls:
            return []
        body: dict[str, Any] = {name: [] for name in lib.url_lists.values()}
        body[lib.url_lists.get(asset_type, next(iter(lib.url_lists.values())))] = list(urls)
        return [(lib.upload_path, body)]
    name = values.get("name", "").strip() if lib.takes_names else ""
    out: list[tuple[str, dict[str, Any]]] = []
    for index, url in enumerate(urls, start=1):
        upload: dict[str, Any] = {"assetType": asset_type, "url": url}
        if name:
            upload["name"] = name if len(urls) == 1 else f"{name} ({index})"
        out.append((lib.upload_path, upload))
    return out


def _human(problem: Problem, urls: int) -> Problem:
    """A problem named as the user sees the field: ``URL`` (``URL line 2`` of several)."""
    head, _, rest = problem.field.partition("[")
    label = FIELD_LABELS.get(head, head)
    index = rest.rstrip("]")
    if index.isdigit() and label == "URL":
        label = f"URL line {int(index) + 1}" if urls > 1 else "URL"
    elif rest:
        label = f"{label} {index}"
    return Problem(label, problem.rule, problem.severity)


def problems(values: dict[str, str], **checks: Any) -> list[Problem]:
    """Problems of what Submit would send, named as the user sees the fields.

    ``checks`` go to ``validate_request`` as they are (the panel passes the session's
    ``service_origins`` when the session has them: the service's own URLs are reachable).
    """
    library_id = values.get("library", DEFAULT_VALUES["library"])
    if library_id not in ASSET_LIBRARIES:
        return [Problem("Library", f"must be one of {', '.join(ASSET_LIBRARIES)}")]
    allowed = ASSET_LIBRARIES[library_id].asset_types
    if values.get("asset_type") not in allowed:
        return [Problem("Type", f"must be one of {', '.join(allowed)} in this library")]
    found = bodies(values)
    if not found:
        return [Problem("URL", "enter a URL (or choose a file)")]
    if len(found) == 1:
        urls = len(split_lines(values.get("url", "")))
        return [_human(p, urls) for p in validate_request(*found[0], **checks)]
    return [
        Problem(f"URL line {line}", p.rule, p.severity)
        for line, (path, body) in enumerate(found, start=1)
        for p in validate_request(path, body, **checks)
    ]


def file_problems(*, size: int, content_type: str, library: str, hosting: bool) -> list[Problem]:
    """Problems of a file the user chose."""
    if not hosting:
        return [Problem("File", NEEDS_PUBLIC_URL)]
    if size == 0:
        return [Problem("File", "is empty")]
    if size > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // (1024 * 1024)
        return [Problem("File", f"is {size / 1e6:.1f} MB; at most {limit} MiB")]
    asset_type = type_of(content_type)
    allowed = ASSET_LIBRARIES[library].asset_types
    if asset_type is None or asset_type not in allowed:
        kinds = ", ".join(t.lower() for t in allowed)
        shown = content_type or "unknown type"
        return [Problem("File", f"must be {kinds} ({shown} is not)")]
    return []


def rows_from_history(records: list[dict[Any, Any]], service: str) -> list[AssetRow]:
    """Assets of ``service`` the history knows (oldest first), without deleted or refused ones."""
    rows = []
    for record in reversed(records):
        asset_id = str(record["task_id"])
        same = str(record.get("service") or "").rstrip("/") == service
        gone = record["status"] in ("deleted", "failed") or asset_id.startswith("attempt-")
        if not same or gone:
            continue
        params = record.get("parameters") or {}
        rows.append(
            AssetRow(
                asset_id=asset_id,
                library=str(params.get("library") or library_of(asset_id)),
                asset_type=str(params.get("assetType") or "Image"),
                name=str(params.get("name") or ""),
                url=str(params.get("url") or params.get("originalUrl") or ""),
                status=str(record["status"]),
            )
        )
    return rows


def submitted_text(added: int, refused: int) -> str:
    """The status line after an upload."""
    parts = []
    if added:
        parts.append(f"Submitted {added} asset{'s' if added > 1 else ''} for review.")
    if refused:
        which = "an upload" if refused == 1 else f"{refused} uploads"
        parts.append(f"The library refused {which}; the reason is in the list.")
    return " ".join(parts)


def thumb_data_url(data: bytes) -> str:
    """A small WebP data URL of image bytes; empty when they are not a readable image."""
    try:
        small, mime = thumbnail(data, THUMB_PX)
    except (OSError, ValueError):
        return ""
    return f"data:{mime};base64,{base64.b64encode(small).decode('ascii')}"
