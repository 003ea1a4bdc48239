"""The in-browser site's own service worker (issue 29: a second visit from the browser's
cache): it replaces JupyterLite's, keeps its drive protocol, names its cache after the
site's files, and the landing page registers it at JupyterLite's address before it opens
the Studio."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mediagen_nb._lite import _site


def site(folder: Path) -> Path:
    (folder / "static").mkdir(parents=True)
    (folder / "static" / "a.whl").write_bytes(b"wheel")
    (folder / "jupyter-lite.json").write_text("{}")
    _site._landing(folder)
    return folder


def test_the_cache_is_named_after_the_site_s_files(tmp_path: Path) -> None:
    one = site(tmp_path / "one")
    name = _site._service_worker(one)
    script = (one / "service-worker.js").read_text()
    assert re.fullmatch(r"mediagen-lite-[0-9a-f]{16}", name)
    assert f'const CACHE = "{name}";' in script
    assert "{{CACHE}}" not in script
    assert _site._service_worker(site(tmp_path / "same")) == name  # same files, same cache
    changed = site(tmp_path / "changed")
    (changed / "static" / "a.whl").write_bytes(b"another wheel")
    assert _site._service_worker(changed) != name  # a new build starts a new cache


def test_it_keeps_jupyterlite_s_drive_protocol(tmp_path: Path) -> None:
    _site._service_worker(site(tmp_path))
    script = (tmp_path / "service-worker.js").read_text()
    assert 'new BroadcastChannel("/sw-api.v1")' in script
    assert "/api/service-worker-heartbeat" in script
    assert "api\\/(drive|stdin\\/)" in script
    assert "self.clients.claim()" in script


def test_the_landing_page_registers_it_where_jupyterlite_does(tmp_path: Path) -> None:
    page = (site(tmp_path) / "index.html").read_text()
    assert 'register("service-worker.js?enableCache=true")' in page
    frame = re.search(r"<iframe [^>]*>", page)
    assert frame is not None
    assert "src" not in frame.group(0)  # the Studio opens only from the script below
    assert "Promise.race([ready, " in page  # once the worker is ready (or after 4 s)
    assert ".then(studio, studio)" in page
    _site._lite_config(tmp_path)
    config = json.loads((tmp_path / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert config["enableServiceWorkerCache"] is True  # JupyterLite: the same address
