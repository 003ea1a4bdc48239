"""The site's generated pages (scripts/docs_pages.py, the MkDocs hook): a family registered in
the catalog gets its page and its nav entry with no other change; the CLI page holds every
subcommand's ``--help``; a notebook mark links a notebook only when it exists."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed")

from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files

from mediagen_nb.catalog import Family, Param, register_family
from mediagen_nb.catalog._families import REFERENCE_FIELDS
from mediagen_nb.cli import _parser

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

import docs_pages  # noqa: E402 - scripts/ is not a package

MADE_UP = Family(
    id="zephyr",
    kind="video",
    title="Zephyr (made up)",
    create_path="/v1/zephyr/videos",
    models=("zephyr-1", "zephyr-1-fast"),
    documented=True,
    max_resolution="1440p",
    duration_range=(3, 9),
    poll_interval=(20.0, 45.0),
    eta_s=(90.0, 240.0),
    url_lifetime_s=7200.0,
    record_retention_s=None,
    create_object="video",
    result_object=None,
    description="A family made up by a test.",
    reference_fields=REFERENCE_FIELDS,
    model_eta_s={"zephyr-1-fast": (30.0, 60.0)},
)
MADE_UP_PARAMS = (
    Param("prompt", "text", "What to film.", True),
    Param("duration", "int", "Seconds.", default=5, minimum=3, maximum=9),
    Param("mood", "enum", "The light.", options=("dawn", "dusk"), exclusive_with="palette"),
    Param("referenceImages", "url_list", "Pictures to follow.", max_items=3),
)


@pytest.fixture
def made_up_family() -> Iterator[Family]:
    remove = register_family(MADE_UP, params=MADE_UP_PARAMS)
    try:
        yield MADE_UP
    finally:
        remove()


@pytest.fixture
def config(tmp_path: Path) -> MkDocsConfig:
    root = Path(docs_pages.ROOT)
    return load_config(str(root / "mkdocs.yml"), site_dir=str(tmp_path / "site"))


def test_a_registered_family_gets_its_page(made_up_family: Family) -> None:
    pages = docs_pages.generated_pages()
    page = pages["families/zephyr.md"]
    lines = page.splitlines()
    assert lines[0] == "# Zephyr (made up)"
    assert "A family made up by a test." in lines
    assert "| Models | `zephyr-1`, `zephyr-1-fast` |" in lines
    assert "| Create endpoint | `POST /v1/zephyr/videos` |" in lines
    assert "| Duration | 3 to 9 s |" in lines
    assert "| Poll interval | every 20 s to 45 s (never faster than 20 s) |" in lines
    assert "| Estimated time | 1.5 min to 4 min |" in lines
    assert "| Estimated time, `zephyr-1-fast` | 30 s to 1 min |" in lines
    assert "| Result URL valid | 2 h |" in lines
    assert "| Task record kept | not stated |" in lines
    rows = [line for line in lines if line.startswith("| `")]
    assert rows == [
        "| `prompt` | text | yes |  | any value of its type | What to film. |",
        "| `duration` | int |  | `5` | from 3 to 9 | Seconds. |",
        "| `mood` | enum |  |  | one of `'dawn'`, `'dusk'`; not together with `palette`"
        " | The light. |",
        "| `referenceImages` | url_list |  |  | at most 3 items; accepts `asset://ID` of an"
        " Active asset | Pictures to follow. |",
    ]
    index = pages["families/index.md"]
    assert "| [Zephyr (made up)](zephyr.md) | video | `zephyr-1`, `zephyr-1-fast` |" in index


def test_the_page_leaves_with_its_family(made_up_family: Family) -> None:
    remove = register_family(
        Family(**{**MADE_UP.__dict__, "id": "gale", "create_path": "/v1/gale", "models": ()})
    )
    assert "families/gale.md" in docs_pages.generated_pages()
    remove()
    pages = docs_pages.generated_pages()
    assert "families/gale.md" not in pages
    assert "gale" not in pages["families/index.md"]


def test_the_hook_adds_the_page_and_its_nav_entry(
    made_up_family: Family, config: MkDocsConfig
) -> None:
    config = config.plugins.on_config(config)  # every plugin's and hook's, as a build runs them
    section = docs_pages._section(config.nav or [], docs_pages.FAMILIES_SECTION)
    assert section is not None
    assert section[0] == "families/index.md"
    assert {"Zephyr (made up)": "families/zephyr.md"} in section
    examples = docs_pages._section(config.nav or [], docs_pages.EXAMPLES_SECTION)
    assert examples is not None
    assert examples[:3] == [
        "notebooks/index.md",
        {"00-playground": "notebooks/00-playground.ipynb"},
        {"01-getting-started": "notebooks/01-getting-started.ipynb"},
    ]
    files = config.plugins.on_files(Files([]), config=config)
    page = files.get_file_from_path("families/zephyr.md")
    assert page is not None
    assert page.content_string.startswith("# Zephyr (made up)\n")
    notebooks = sorted(f.src_uri for f in files if f.src_uri.endswith(".ipynb"))
    assert notebooks == [f"notebooks/{nb.name}" for nb in docs_pages.notebooks()]
    assert "notebooks/01-getting-started.ipynb" in notebooks
    assert all(f.is_documentation_page() for f in files if f.src_uri in notebooks)  # rendered
    # mkdocs-jupyter's cache is a folder in the checkout: a build must not write one
    assert config.plugins["mkdocs-jupyter"].config["cache"] is False


def test_rules_differ_by_model_where_the_catalog_says_so() -> None:
    page = docs_pages.generated_pages()["families/image2.md"]
    row = next(line for line in page.splitlines() if line.startswith("| `image_urls`"))
    assert "at most 16 items; at most 6 with `gpt-image-2`; at most 16 with `gpt-image-2-r`" in row
    seedance = docs_pages.generated_pages()["families/seedance.md"]
    assert "| Poll interval, `seedance_1_5_pro_480p` | every 10 s to 20 s |" in seedance
    assert "| Result URL valid | 1 day |" in seedance


def _commands(parser: argparse.ArgumentParser, prefix: str = "") -> Iterator[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prefix}{name}"
                yield from _commands(sub, f"{prefix}{name} ")
        else:
            yield from action.option_strings


def test_the_cli_page_holds_every_command_and_option() -> None:
    page = docs_pages.generated_pages()["reference/cli.md"]
    headings = [line for line in page.splitlines() if line.startswith("## ")]
    assert headings == [
        "## mediagen-nb serve",
        "## mediagen-nb classroom",
        "## mediagen-nb lab",
        "## mediagen-nb lite",
        "## mediagen-nb lite build",
    ]
    found = list(_commands(_parser()))
    assert "--api-key-file" in found
    assert "--pyodide-cdn" in found
    missing = [item for item in found if item not in page]
    assert missing == []


def test_a_notebook_mark_links_only_an_existing_notebook() -> None:
    page = "# Compare\n\ntext\n<!-- notebook: 02-images -->\n<!-- notebook: 99-nowhere -->\nend"
    out = docs_pages.on_page_markdown(page)
    assert out.splitlines() == [
        "# Compare",
        "",
        "text",
        "Worked example: [`02-images`](../notebooks/02-images.ipynb).",
        "end",
    ]
