"""The playground as a visitor meets it: JupyterLab, Run All, then the Studio in a browser.

Each test opens ``notebooks/00-playground.ipynb`` (built-in emulator, no key), runs it and
works the Studio by clicking and typing. Assertions read DOM hooks the panels set
(``.mediagen-banner``, ``.mediagen-task-card[data-status]``, ``img/video.mediagen-preview``,
``.mediagen-turn[data-role][data-done]``), never sleeps or pixels. Each test leaves a
screenshot of its panel in ``docs/screenshots/``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from lab_driver import Lab, save_screenshot
from playwright.sync_api import Locator, Page, expect

from mediagen_nb.catalog import family_for_model, params_for

pytestmark = pytest.mark.ui

TABS = ["Chat", "Images", "Videos", "Assets", "History"]
FIELD_PREFIX = "mediagen-field-"
FIELD_WAIT_S = 30.0


def open_studio(lab: Lab) -> Locator:
    """Open the playground, run it and return the rendered Studio."""
    lab.open("00-playground.ipynb")
    lab.run_all()
    studio = lab.page.locator(".mediagen-studio")
    expect(studio).to_be_visible()
    return studio


def show_tab(studio: Locator, title: str) -> Locator:
    """Click a Studio tab; return the panel it shows.

    Videos, Assets and History are built by the kernel when first selected: until then the
    tab shows a placeholder, so this waits for the real panel.
    """
    studio.locator(".mediagen-tabs .lm-TabBar-tab", has_text=title).click()
    panel = studio.locator(".mediagen-tabs > .widget-tab-contents > :not(.lm-mod-hidden)")
    expect(panel).to_have_count(1)
    expect(panel).not_to_have_class(re.compile(r"\bmediagen-tab-placeholder\b"))
    return panel


def expected_fields(family: str) -> set[str]:
    """One control per catalog parameter; a mutually exclusive pair shares one control."""
    shown: set[str] = set()
    for param in params_for(family):
        if param.exclusive_with not in shown:
            shown.add(param.name)
    return shown


def choose_model(panel: Locator, model: str) -> set[str]:
    """Pick ``model`` in the panel's picker (options read "Family · model").

    Waits until the form shows the catalog's fields for the model's family (the kernel
    rebuilds the form), so what the test types next lands in the new fields; returns them.
    """
    select = panel.locator(".mediagen-model-picker select")
    values = select.locator("option").evaluate_all("els => els.map(e => e.value)")
    (value,) = [v for v in values if v.endswith(f" · {model}")]
    select.select_option(value=value)
    fam = family_for_model(model)
    assert fam is not None, model
    expected = expected_fields(fam.id)
    deadline = time.monotonic() + FIELD_WAIT_S
    shown = visible_fields(panel)
    while shown != expected and time.monotonic() < deadline:
        panel.page.wait_for_timeout(100)
        shown = visible_fields(panel)
    return shown


def type_into(field: Locator, text: str) -> None:
    """Type like a person: fill, then leave the field (widgets sync text on change)."""
    field.fill(text)
    field.blur()


def visible_fields(panel: Locator) -> set[str]:
    """Keys of the request fields the form shows now."""
    classes = panel.locator(f"[class*='{FIELD_PREFIX}']:visible").evaluate_all(
        "els => els.map(e => e.className)"
    )
    keys = set()
    for names in classes:
        for name in names.split():
            if name.startswith(FIELD_PREFIX) and name != f"{FIELD_PREFIX}message":
                keys.add(name.removeprefix(FIELD_PREFIX))
    return keys


def test_playground_renders_studio(lab: Lab, screenshot_dir: Path) -> None:
    studio = open_studio(lab)
    expect(studio.locator(".mediagen-banner")).to_contain_text("demo mode")
    tab_titles = studio.locator(".mediagen-tabs .lm-TabBar-tab").all_inner_texts()
    assert [t.strip() for t in tab_titles] == TABS
    chat = show_tab(studio, "Chat")
    expect(chat.locator("select").first).to_be_visible()
    images = show_tab(studio, "Images")
    expect(images.locator(".mediagen-model-picker select")).to_be_visible()
    save_screenshot(studio, screenshot_dir / "studio.png")
    assets = show_tab(studio, "Assets")
    expect(studio.locator(".mediagen-asset-panel")).to_be_visible()
    type_into(assets.locator("textarea").first, "https://example.com/people/presenter.jpg")
    assets.get_by_role("button", name="Submit for review").click()
    expect(assets.locator(".mediagen-asset[data-status=Active]")).to_have_count(1)
    save_screenshot(studio, screenshot_dir / "assets.png")


def test_model_choice_shows_the_catalog_fields(lab: Lab) -> None:
    studio = open_studio(lab)
    for tab, model in [
        ("Images", "gpt-image-2"),
        ("Images", "nano-banana-pro"),
        ("Videos", "neutralSora2Plus"),
        ("Videos", "seedance_1_5_pro_720p"),
        ("Videos", "viduq3-turbo"),
    ]:
        panel = show_tab(studio, tab)
        fam = family_for_model(model)
        assert fam is not None
        assert choose_model(panel, model) == expected_fields(fam.id), model


def test_bad_value_shows_message_and_disables_generate(lab: Lab) -> None:
    panel = show_tab(open_studio(lab), "Images")
    choose_model(panel, "gpt-image-2")
    generate = panel.locator("button.mediagen-generate")
    expect(generate).to_be_disabled()  # no prompt yet
    type_into(panel.locator(f".{FIELD_PREFIX}prompt textarea"), "a lighthouse at dusk")
    expect(generate).to_be_enabled()
    size = panel.locator(f".{FIELD_PREFIX}size input")
    type_into(size, "1000x1000")
    expect(panel).to_contain_text("size: both edges must be multiples of 16")
    expect(generate).to_be_disabled()
    type_into(size, "1024x1024")
    expect(generate).to_be_enabled()


def record_card_statuses(page: Page) -> None:
    """Remember every ``data-status`` a task card shows, in order, in ``window.__statuses``."""
    page.evaluate(
        """() => {
        window.__statuses = [];
        const seen = (s) => { if (s && window.__statuses.at(-1) !== s) window.__statuses.push(s); };
        new MutationObserver(() => {
            document.querySelectorAll('.mediagen-task-card').forEach(c => seen(c.dataset.status));
        }).observe(document.body, {subtree: true, childList: true, attributes: true,
                                   attributeFilter: ['data-status']});
    }"""
    )


def test_generate_image_shows_real_pixels(lab: Lab, screenshot_dir: Path) -> None:
    studio = open_studio(lab)
    panel = show_tab(studio, "Images")
    choose_model(panel, "nano-banana")
    type_into(panel.locator(f".{FIELD_PREFIX}prompt textarea"), "a red fox in fresh snow")
    record_card_statuses(lab.page)
    panel.locator("button.mediagen-generate").click()
    expect(panel.locator(".mediagen-task-card[data-status=completed]")).to_have_count(1)
    image = panel.locator("img.mediagen-preview")
    expect(image).to_be_visible()
    lab.page.wait_for_function(
        "() => { const i = document.querySelector('img.mediagen-preview');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    statuses = lab.page.evaluate("window.__statuses")
    assert statuses[-1] == "completed"
    assert {"queued", "processing"} & set(statuses[:-1]), statuses
    save_screenshot(studio, screenshot_dir / "images.png")


def test_generate_video_can_play(lab: Lab, screenshot_dir: Path) -> None:
    studio = open_studio(lab)
    panel = show_tab(studio, "Videos")
    choose_model(panel, "viduq3-turbo")
    type_into(panel.locator(f".{FIELD_PREFIX}prompt textarea"), "a paper boat on a rainy street")
    panel.locator("button.mediagen-generate").click()
    expect(panel.locator(".mediagen-task-card[data-status=completed]")).to_have_count(1)
    video = panel.locator("video.mediagen-preview")
    expect(video).to_be_attached()
    video.evaluate("v => { v.muted = true; return v.play(); }")
    lab.page.wait_for_function(
        "() => { const v = document.querySelector('video.mediagen-preview');"
        " return v && v.readyState >= 2 && v.videoWidth > 0; }"
    )
    video.evaluate("v => v.pause()")
    save_screenshot(studio, screenshot_dir / "videos.png")


def test_history_lists_what_was_made(lab: Lab, screenshot_dir: Path) -> None:
    studio = open_studio(lab)
    panel = show_tab(studio, "Images")
    choose_model(panel, "gpt-image-2")
    type_into(panel.locator(f".{FIELD_PREFIX}prompt textarea"), "a bowl of ramen, top view")
    panel.locator("button.mediagen-generate").click()
    expect(panel.locator(".mediagen-task-card[data-status=completed]")).to_have_count(1)
    history = show_tab(studio, "History")
    expect(history.locator(".mediagen-history-table")).to_contain_text("a bowl of ramen")
    save_screenshot(studio, screenshot_dir / "history.png")
