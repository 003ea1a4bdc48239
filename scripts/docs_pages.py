"""MkDocs hook (mkdocs.yml ``hooks:``): the site's pages made from the code at build time.

One page per model family from the catalog, the CLI page from ``mediagen-nb --help``, and the
notebooks of ``notebooks/`` as example pages; each is added to its section of the nav.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

from mediagen_nb.catalog import Family, Param, families, params_for

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
FAMILIES_SECTION = "Model families"
EXAMPLES_SECTION = "Example notebooks"
NOTEBOOK_MARK = "<!-- notebook:"
"""``<!-- notebook: 08-compare -->`` in a page: a link to that notebook, when it exists."""


def _seconds(value: float) -> str:
    """``90.0`` -> ``1.5 min``; ``7200`` -> ``2 h``; a readable length of time."""
    for unit, size in (("day", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if value >= size:
            amount = f"{value / size:g}"
            return f"{amount} {unit}" + ("s" if unit == "day" and amount != "1" else "")
    return f"{value:g} s"


def _span(pair: tuple[float, float]) -> str:
    low, high = pair
    return f"{_seconds(low)} to {_seconds(high)}"


def _stated(value: float | None) -> str:
    return "not stated" if value is None else _seconds(value)


def _code(value: Any) -> str:
    return f"`{value!r}`" if isinstance(value, str) else f"`{value}`"


def rule_in_words(param: Param, fam: Family) -> str:
    """What the validator accepts for ``param``, as a sentence list."""
    rules: list[str] = []
    if param.options:
        rules.append("one of " + ", ".join(_code(o) for o in param.options))
    if param.minimum is not None and param.maximum is not None:
        rules.append(f"from {param.minimum} to {param.maximum}")
    elif param.minimum is not None:
        rules.append(f"at least {param.minimum}")
    elif param.maximum is not None:
        rules.append(f"at most {param.maximum}")
    if param.max_items is not None:
        rules.append(f"at most {param.max_items} items")
    for model, limit in sorted(param.max_items_by_model.items()):
        rules.append(f"at most {limit} with `{model}`")
    if param.exclusive_with:
        rules.append(f"not together with `{param.exclusive_with}`")
    if param.name in fam.reference_fields:
        rules.append("accepts `asset://ID` of an Active asset")
    return "; ".join(rules) or "any value of its type"


def _param_row(param: Param, fam: Family) -> str:
    default = "" if param.default is None else _code(param.default)
    cells = (
        f"`{param.name}`",
        param.type,
        "yes" if param.required else "",
        default,
        rule_in_words(param, fam),
        param.help,
    )
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _timing_lines(fam: Family) -> Iterator[str]:
    low_poll = _seconds(fam.poll_interval[0])
    yield f"| Poll interval | every {_span(fam.poll_interval)} (never faster than {low_poll}) |"
    for model, pair in sorted(fam.model_poll_interval.items()):
        yield f"| Poll interval, `{model}` | every {_span(pair)} |"
    per = ", for an 8 s video, scaled with the requested duration" if fam.eta_per_8s else ""
    yield f"| Estimated time | {_span(fam.eta_s)}{per} |"
    for model, pair in sorted(fam.model_eta_s.items()):
        yield f"| Estimated time, `{model}` | {_span(pair)} |"
    yield f"| Result URL valid | {_stated(fam.url_lifetime_s)} |"
    yield f"| Task record kept | {_stated(fam.record_retention_s)} |"


def family_page(fam: Family) -> str:
    """The Markdown page of one family: models, limits, timing and every parameter."""
    models = ", ".join(f"`{m}`" for m in fam.models) or (
        "not listed: pass the model name the service gives, with `family=` "
        f"(`client.{fam.kind}s.create(model, family={fam.id!r}, ...)`)"
    )
    example = fam.models[0] if fam.models else "MODEL"
    call = f'client.{fam.kind}s.create("{example}", prompt="...")'
    lines = [
        f"# {fam.title}",
        "",
        fam.description,
        "",
        "| what | value |",
        "|---|---|",
        f"| Family id | `{fam.id}` ({fam.kind}) |",
        f"| Models | {models} |",
        f"| Create endpoint | `POST {fam.create_path}` |",
        f"| Largest output | {fam.max_resolution} |",
    ]
    if fam.duration_range is not None:
        lines.append(f"| Duration | {fam.duration_range[0]} to {fam.duration_range[1]} s |")
    lines += list(_timing_lines(fam))
    lines.append("| Statuses | " + " → ".join(f"`{s}`" for s in fam.statuses) + " |")
    if fam.asset_library:
        lines.append(f"| Asset library | `{fam.asset_library}` |")
    documented = (
        "The service documents every parameter of this family."
        if fam.documented
        else "The service documents this family's parameters only in part: the table lists "
        "the ones the forms offer; the client sends other fields as given."
    )
    lines += [
        "",
        "## Parameters",
        "",
        documented,
        f"Each is a keyword argument of `{call}` (`model` is the first argument); a value "
        "that breaks a rule raises `RequestValidationError` before anything is sent.",
        "",
        "| parameter | type | required | default | rule | what it does |",
        "|---|---|---|---|---|---|",
        *(_param_row(p, fam) for p in params_for(fam.id)),
        "",
    ]
    return "\n".join(lines)


def families_index() -> str:
    """The overview page: every family with its kind, models and one-line description."""
    lines = [
        "# Model families",
        "",
        "Every image and video family of the service, generated from the catalog "
        "(`mediagen_nb.catalog`), the same tables the client validates with and the forms "
        "are built from. `client.images.create(model, ...)` and `client.videos.create(model, "
        "...)` find the family from the model name.",
        "",
        "| family | kind | models | what it makes |",
        "|---|---|---|---|",
    ]
    for fam in families():
        models = ", ".join(f"`{m}`" for m in fam.models) or "(not listed)"
        lines.append(f"| [{fam.title}]({fam.id}.md) | {fam.kind} | {models} | {fam.description} |")
    return "\n".join([*lines, ""])


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", p) for n, p in _subcommands(sub))


def cli_page() -> str:
    """The CLI page: ``mediagen-nb --help`` and every subcommand's ``--help``."""
    from mediagen_nb.cli import _parser

    parser = _parser()
    parser.formatter_class = _wide_formatter
    blocks = ["# Command line", "", "`mediagen-nb --help`:", "", "```text", parser.format_help()]
    blocks.append("```")
    for name, sub in _subcommands(parser):
        sub.formatter_class = _wide_formatter
        blocks += ["", f"## mediagen-nb {name}", "", "```text", sub.format_help(), "```"]
    return "\n".join([*blocks, ""])


def _wide_formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=80)  # the same text on any terminal


def generated_pages() -> dict[str, str]:
    """Every generated page by its path in the site."""
    pages = {"families/index.md": families_index(), "reference/cli.md": cli_page()}
    pages.update({f"families/{fam.id}.md": family_page(fam) for fam in families()})
    return pages


def notebooks() -> list[Path]:
    """The example notebooks, in their numbered order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def _section(nav: list[Any], title: str) -> list[Any] | None:
    for item in nav:
        if isinstance(item, dict):
            for key, value in item.items():
                if key == title and isinstance(value, list):
                    return value
                found = _section(value, title) if isinstance(value, list) else None
                if found is not None:
                    return found
    return None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Put the family pages and the notebooks into their nav sections."""
    nav = config.nav or []
    family_section = _section(nav, FAMILIES_SECTION)
    if family_section is not None:
        family_section += [{fam.title: f"families/{fam.id}.md"} for fam in families()]
    example_section = _section(nav, EXAMPLES_SECTION)
    if example_section is not None:
        example_section += [{nb.stem: f"notebooks/{nb.name}"} for nb in notebooks()]
    return config


@event_priority(100)  # before mkdocs-jupyter's on_files, which makes the notebooks pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages and the notebooks (read in place from ``notebooks/``)."""
    for path, content in generated_pages().items():
        files.append(File.generated(config, path, content=content))
    for nb in notebooks():
        files.append(
            File(
                f"notebooks/{nb.name}",
                src_dir=str(ROOT),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each notebook mark with a link to that notebook, or drop it when absent."""
    if NOTEBOOK_MARK not in markdown:
        return markdown
    lines = []
    for line in markdown.splitlines():
        if line.startswith(NOTEBOOK_MARK):
            name = line.removeprefix(NOTEBOOK_MARK).removesuffix("-->").strip()
            if (NOTEBOOKS / f"{name}.ipynb").exists():
                lines.append(f"Worked example: [`{name}`](../notebooks/{name}.ipynb).")
            continue
        lines.append(line)
    return "\n".join(lines)
