"""The playground's autosave through a real Jupyter contents manager (issue 29): after Run
All, JupyterLab's save adds an empty cell below the last one run and the kernel's full
``language_info``; the save hook still writes the committed bytes."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager

from mediagen_nb import _lab

PLAYGROUND = "notebooks/00-playground.ipynb"
COMMITTED = (Path(__file__).resolve().parent.parent / PLAYGROUND).read_bytes()
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
    "version": "3.11.7",
}


def after_run_all() -> dict[str, Any]:
    """The playground as JupyterLab sends it after running it: outputs, counts, widget
    state, the kernel's language_info and the new empty cell."""
    content: dict[str, Any] = json.loads(COMMITTED)
    code = next(c for c in content["cells"] if c["cell_type"] == "code")
    code["execution_count"] = 1
    view = {"model_id": "0f3c", "version_major": 2, "version_minor": 0}
    mime = "application/vnd.jupyter.widget-view+json"
    code["outputs"] = [{"output_type": "execute_result", "data": {mime: view}, "metadata": {}}]
    content["metadata"]["language_info"] = LANGUAGE_INFO
    content["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    empty: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "id": "9d1e2f3a",
        "metadata": {},
    }
    content["cells"].append({**empty, "outputs": [], "source": ""})
    return content


@pytest.fixture
def manager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FileContentsManager]:
    monkeypatch.setenv(_lab.PLAYGROUND_ENV, PLAYGROUND)
    (tmp_path / "notebooks").mkdir()
    (tmp_path / PLAYGROUND).write_bytes(COMMITTED)
    # the hook by name, as the server is configured
    contents = FileContentsManager(root_dir=str(tmp_path), pre_save_hook=_lab.SAVE_HOOK)
    yield contents
    # nbformat's signature store holds a SQLite connection (Python 3.13 warns when collected)
    contents.notary.close()  # type: ignore[no-untyped-call]


def save(manager: FileContentsManager, content: dict[str, Any]) -> bytes:
    model = {"type": "notebook", "format": "json", "content": content}
    manager.save(model, PLAYGROUND)  # type: ignore[no-untyped-call]  # untyped library
    return (Path(manager.root_dir) / PLAYGROUND).read_bytes()


def test_an_autosave_after_run_all_leaves_the_committed_bytes(
    manager: FileContentsManager,
) -> None:
    assert save(manager, after_run_all()) == COMMITTED
    assert save(manager, after_run_all()) == COMMITTED  # and again, two minutes later


def test_an_edit_is_saved_without_the_empty_cell_or_the_kernels_details(
    manager: FileContentsManager,
) -> None:
    content = after_run_all()
    code = next(c for c in content["cells"] if c["cell_type"] == "code")
    code["source"] = "import mediagen_nb as mg\n\nmg.Studio(resume=False)"
    saved = json.loads(save(manager, copy.deepcopy(content)))
    committed = json.loads(COMMITTED)
    assert len(saved["cells"]) == len(committed["cells"])  # the empty cell is not saved
    assert "".join(saved["cells"][-1]["source"]).endswith("\n\nmg.Studio(resume=False)")
    assert saved["metadata"] == committed["metadata"]  # language_info as committed, no widgets
    assert all(c.get("outputs", []) == [] for c in saved["cells"])
