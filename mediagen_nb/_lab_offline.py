"""A Voila template that loads nothing from outside the server (an offline classroom works).

Voila's ``lab`` template links Font Awesome from a CDN (the Studio draws no icon font) and
loads MathJax from one unless both MathJax settings read "null"; ``mediagen`` is ``lab``
without both, selected by the config folder of ``mediagen-nb lab`` and Binder.
"""

from __future__ import annotations

import json
from pathlib import Path

VOILA_TEMPLATE = "mediagen"
"""The template's name (``VoilaConfiguration.template``)."""
CDN_LINKS = (
    '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/'
    'fontawesome-free@^5/css/all.min.css" type="text/css" />',
    '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/'
    'fontawesome-free@^5/css/v4-shims.min.css" type="text/css" />',
)
"""What ``lab/index.html.j2`` (Voila 0.5) links from a CDN; a browser test checks that no
other outside address is requested, so a Voila that adds one is noticed."""


def _index() -> str:
    removals = " ".join(f"| replace({json.dumps(link)}, '')" for link in CDN_LINKS)
    return (
        "{%- extends 'lab/index.html.j2' -%}\n"
        "{%- block notebook_css -%}\n"
        "{%- set _ = page_config.update(fullMathjaxUrl='null', mathjaxConfig='null') -%}\n"
        f"{{%- filter trim {removals} -%}}\n"
        "{{ super() }}\n"
        "{%- endfilter -%}\n"
        "{%- endblock notebook_css -%}\n"
    )


def write_voila_template(data_folder: Path) -> Path:
    """Write the template under ``data_folder`` (a ``JUPYTER_PATH`` entry); returns its folder."""
    folder = data_folder / "voila" / "templates" / VOILA_TEMPLATE
    folder.mkdir(parents=True, exist_ok=True)
    conf = {"base_template": "lab"}
    (folder / "conf.json").write_text(json.dumps(conf) + "\n", encoding="utf-8")
    (folder / "index.html.j2").write_text(_index(), encoding="utf-8")
    return folder
