"""Reading a saved file's request back (``_provenance`` writes it; ``Task.save`` saves).

``read_request`` gives a ``SavedRequest`` whose ``body`` refills a form or is sent
again, naming the parameters the catalog no longer knows (``unknown``), which it leaves out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb._platform import off_loop
from mediagen_nb._provenance import embed, extract, make_record, read_file, sidecar_path
from mediagen_nb.catalog import FAMILIES, family_for_model, params_for

from ._files import safe_file_name
from ._recording import media_suffix

if TYPE_CHECKING:
    from ._tasks import Task


def request_record(task: Task) -> dict[str, Any]:
    """What a saved file of ``task`` carries: model, family, parameters, prompt, ids."""
    return make_record(task.id, task.family, task.request or {"model": task.model}, task.parents)


@dataclass(frozen=True)
class SavedRequest:
    """A request read back from a saved file (what ``read_request`` returns).

    Args:
        family: The family id, or None when neither the file nor the catalog names one.
        model: The model name the request was made with.
        body: The request body to refill a form with (unknown parameters left out).
        task_id: The id of the task that made the file.
        parents: The ids of the tasks and assets that task was made from.
        unknown: Parameters of the saved request the catalog does not know (any more).
        notes: Plain sentences about what could not be restored.
    """

    family: str | None
    """The family id, or None when neither the file nor the catalog names one."""
    model: str | None
    body: dict[str, Any]
    """The request body to refill a form with (unknown parameters left out)."""
    task_id: str | None = None
    parents: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    """Parameters of the saved request the catalog does not know (any more)."""
    notes: tuple[str, ...] = field(default=())
    """Plain sentences about what could not be restored."""

    @property
    def kind(self) -> str | None:
        """``image`` or ``video`` (None for an unknown family)."""
        fam = FAMILIES.get(self.family or "")
        return fam.kind if fam is not None else None


def _known_fields(family_id: str) -> set[str]:
    return {"model", *(p.name for p in params_for(family_id))}


def saved_request(record: dict[str, Any]) -> SavedRequest:
    """A ``SavedRequest`` from the record a save wrote (see ``request_record``)."""
    raw = record.get("request")
    body = dict(raw) if isinstance(raw, dict) else {}
    model = record.get("model") or body.get("model")
    model = str(model) if model else None
    family_id = record.get("family")
    by_model = family_for_model(model) if model else None
    if not isinstance(family_id, str) or family_id not in FAMILIES:
        family_id = by_model.id if by_model is not None else None
    notes: list[str] = []
    unknown: list[str] = []
    if family_id is None:
        notes.append(f"the catalog knows no family for model {model!r}; nothing to refill")
    else:
        known = _known_fields(family_id)
        unknown = sorted(k for k in body if k not in known)
        fam = FAMILIES[family_id]
        if fam.models and model not in fam.models:
            notes.append(f"{fam.title} has no model {model!r} any more")
    if unknown:
        notes.append("the catalog no longer knows: " + ", ".join(unknown) + " (left out)")
    parents = record.get("parents")
    task_id = record.get("task_id")
    return SavedRequest(
        family=family_id,
        model=model,
        body={k: v for k, v in body.items() if k not in unknown},
        task_id=str(task_id) if task_id else None,
        parents=tuple(str(p) for p in parents) if isinstance(parents, list) else (),
        unknown=tuple(unknown),
        notes=tuple(notes),
    )


def _from_bytes(data: bytes) -> dict[str, Any] | None:
    """The record inside a file's bytes, or the bytes of a sidecar JSON themselves."""
    if data.lstrip()[:1] == b"{":
        try:
            loaded = json.loads(data.decode("utf-8"))
        except ValueError:
            return None
        return loaded if isinstance(loaded, dict) and "mediagen" in loaded else None
    return extract(data)


def read_request(source: str | Path | bytes) -> SavedRequest:
    """The request a saved file carries (in the file, or in its ``.mediagen.json`` sidecar).

    Args:
        source: The saved file's path, or its bytes.

    Returns:
        The request, with ``unknown`` naming parameters the catalog no longer knows.

    Raises:
        ValueError: The file carries no request.
    """
    record = _from_bytes(source) if isinstance(source, bytes) else read_file(Path(source))
    if record is None:
        raise ValueError("this file carries no mediagen_nb request (it was not saved by Save)")
    return saved_request(record)


def save_with_request(data: bytes, record: dict[str, Any], target: Path) -> list[Path]:
    """Write ``data`` with ``record`` inside, or beside it as a sidecar; the files written."""
    from ._files import write_atomic

    embedded = embed(data, record)
    written = [write_atomic(target, embedded)]
    if extract(embedded) is None:
        side = sidecar_path(target)
        text = json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True, default=str)
        written.append(write_atomic(side, text.encode("utf-8")))
    return written


async def save_task(task: Task, path: str | Path) -> Path:
    """Write ``task``'s result to ``path`` (a folder gets ``{id}{suffix}``) with its request."""
    data = await task.read_bytes()
    name = safe_file_name(f"{task.id}{media_suffix(data, task.family_info.kind)}")
    record = request_record(task)

    def write() -> Path:
        target = Path(path) / name if Path(path).is_dir() else Path(path)
        return save_with_request(data, record, target)[0]

    return await off_loop(write)
