"""Carry out a card action: put a result (or a clip's last frame) into a form of the Studio.

The picture goes in as a URL the service can fetch (its own while valid, else
``AsyncClient.media_url``), in the action's slot with the values that make it fit; a face can
go through the family's asset library first. Which families qualify: ``_card_actions``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb._imagesize import image_size
from mediagen_nb._platform import off_loop
from mediagen_nb.catalog import FAMILIES, asset_uri, params_for
from mediagen_nb.catalog._assets import ASSET_LIBRARIES
from mediagen_nb.catalog._carry import carry
from mediagen_nb.catalog._controls import controls_for
from mediagen_nb.catalog._form_body import to_body
from mediagen_nb.widgets._asset_form import bodies
from mediagen_nb.widgets._card_actions import CardAction, Target, card_actions, class_allows
from mediagen_nb.widgets._class_models import allowed
from mediagen_nb.widgets._preview import sniff_mime
from mediagen_nb.widgets._session import ActiveAsset

if TYPE_CHECKING:
    from mediagen_nb._frame_sources import FrameDrawer
    from mediagen_nb.widgets._gallery import Result
    from mediagen_nb.widgets._generate_panel import GeneratePanel

URL_MARGIN_S = 600.0
"""A result URL must stay valid this much longer to go into a form (scaled by speed)."""
_KEEPS_PROMPT = ("animate", "continue")


def choose(
    kind: str,
    size: tuple[int, int] | None,
    action: str,
    family: str | None,
    models: frozenset[str] | None = None,
) -> tuple[CardAction, Target]:
    """The action and the target family (``family``, else the first that fits).

    ``models``: what a class allows (None: every model); other families are not offered.

    Raises:
        ValueError: The action does not apply, naming why.
    """
    found = [a for a in card_actions(kind, size, models) if a.name == action]
    if not found:
        raise ValueError(f"a {kind} card has no action {action!r}")
    chosen = found[0]
    if not chosen.enabled:
        raise ValueError(f"{chosen.label}: {chosen.reason}")
    if family is None:
        return chosen, chosen.usable()[0]
    targets = [t for t in chosen.targets if t.family == family]
    if not targets:
        title = FAMILIES[family].title if family in FAMILIES else repr(family)
        if family in FAMILIES and not class_allows(family, models):
            raise ValueError(f"{chosen.label}: your class does not use {title}")
        raise ValueError(f"{chosen.label}: {title} does not take it")
    if targets[0].reason:
        raise ValueError(f"{chosen.label}: {targets[0].reason}")
    return chosen, targets[0]


def fill(
    panel: GeneratePanel,
    target: Target,
    url: str,
    prompt: str | None,
    models: frozenset[str] | None = None,
) -> None:
    """Open ``target``'s family in ``panel`` with the picture (and prompt) in place.

    The family's form as the user left it, the picture in the slot (``MediaSlot.put``), the
    values that make it fit (the matching orientation) and any option that follows the
    picture (``Param.picture_option``); Animate and Continue carry the prompt over. In a
    class (``models``), a model the class does not allow gives way to the family's first
    allowed one.
    """
    family_id = target.family
    values = carry(dict(panel.values), family_id, panel._memory.get(family_id))
    if prompt:  # Animate / Continue: the clip goes on with the picture's own prompt
        for control in controls_for(family_id):
            if control.carry == "prompt":
                values[control.key] = prompt
    body = to_body(family_id, {**values, "family": family_id})[0]
    if models is not None and body.get("model") not in models:
        body["model"] = next(m for m in FAMILIES[family_id].models if m in models)
    follows = {p.name: p.picture_option for p in params_for(family_id) if p.picture_option}
    panel.load(target.slot.put({**body, **follows, **target.preset}, url), family_id)


async def picture_of(
    result: Result, action: str, drawer: FrameDrawer | None = None
) -> tuple[bytes, tuple[int, int] | None]:
    """The bytes the action puts in (a video's last frame for Continue) and their size.

    Without PyAV (the browser) ``drawer``, the panel whose card was clicked, draws the frame.
    """
    data = result.source
    if not data and result.local_path:
        data = await off_loop(Path(result.local_path).read_bytes)
    if result.status != "completed" or not data:
        raise ValueError("the result is not finished (or its file is gone)")
    if result.kind == "video" and action == "continue":
        from mediagen_nb.client._frames import any_frame_png

        frame = await any_frame_png(data, "last", mime=sniff_mime(data), drawer=drawer)
        return frame, image_size(frame)
    return data, result.size


def own_url(result: Result, speed: float) -> str | None:
    """The result's service URL while it stays valid long enough."""
    expires = result.url_expires
    if not result.url or expires is None:
        return None
    return result.url if expires - time.time() >= URL_MARGIN_S / max(speed, 1e-9) else None


async def use_result(
    source: GeneratePanel, target_panel: Any, result_id: str, action: str, family: str | None
) -> Target:
    """Put result ``result_id`` of ``source`` into a form as ``action`` says; the target.

    ``target_panel(kind)`` gives the Studio's panel for ``image`` or ``video`` families.
    """
    result = source._find(result_id)
    drawer = source.frames.draw if source.frames.offered else None  # else the newest shown
    data, size = await picture_of(result, action, drawer)
    models = allowed(source.session.classroom)
    _action, target = choose(result.kind, size, action, family, models)
    client = source.session.client
    url = None if action == "continue" else own_url(result, client.speed)
    if url is None:
        url = await client.media_url(data, made_from=result.task_id or None)
    if action == "asset":
        url = await to_library(source, result, target, url)
    panel = target_panel(FAMILIES[target.family].kind)
    fill(panel, target, url, result.prompt if action in _KEEPS_PROMPT else None, models)
    return target


async def to_library(source: GeneratePanel, result: Result, target: Target, url: str) -> str:
    """Send the picture to the asset library of ``target``'s family, wait until it is
    ``Active``, offer it in every reference field; its ``asset://`` reference."""
    library = next(lib for lib in ASSET_LIBRARIES.values() if lib.family == target.family)
    client = source.session.client
    name = f"{result.title} ({result.task_id})" if result.task_id else result.title
    values = {"url": url, "asset_type": "Image", "library": library.id, "name": name}
    items = []
    for _path, body in bodies(values):
        items += (await client.assets.submit(library.id, body)).items
    if not items:
        raise ValueError(f"{library.title} did not take the picture")
    asset_id = items[0].assetId
    await client.assets.wait_active([asset_id])
    source.session.add_active_asset(ActiveAsset(asset_id, name, "Image", library.id))
    return asset_uri(asset_id)
