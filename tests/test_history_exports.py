"""The public names of ``mediagen_nb.history`` are pinned."""

from __future__ import annotations

import pytest

import mediagen_nb.history as history_pkg


def test_exported_names() -> None:
    assert history_pkg.__all__ == [
        "HistoryRecords",
        "HistoryUnavailableWarning",
        "Ledger",
        "PendingTask",
        "export",
        "export_history",
        "history",
        "history_records",
        "import_history",
        "ledger",
        "lineage",
        "lineage_records",
        "resume",
        "unfinished",
    ]
    assert history_pkg.__all__ == sorted(history_pkg.__all__)
    for name in history_pkg.__all__:
        assert hasattr(history_pkg, name)


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        history_pkg.no_such_name  # noqa: B018 - the access is the test
