"""The Studio's links that share and its ``busy`` state (``StudioLinks``, mixed into it).

``prefill(query)`` fills the matching panel and names each bad value; ``update_busy()`` says
whether work is under way that leaving the page would lose.
"""

from __future__ import annotations

from typing import Any


class StudioLinks:
    """``prefill`` and ``update_busy`` of the Studio: ``studio`` below is the Studio itself
    (its panels ``images``, ``videos``, ``chat``, its ``select``, ``show_error``, ``busy``)."""

    def prefill(self, query: str) -> list[str]:
        """Fill the Studio from a page address's query (``?tab=images&model=...&prompt=...``
        and the request's other fields), show its tab, and name each bad value in the
        Studio's notice (and the panel's field errors). Returns those problems."""
        from mediagen_nb.widgets._share import parse_link

        studio: Any = self
        link = parse_link(query)
        if link is None:
            return []
        problems = list(link.problems)
        if link.tab in ("Images", "Videos") and link.body:
            problems += self._prefill_media(link.tab, link.body)
        elif link.tab == "Chat" and link.body:
            problems += self._prefill_chat(link.body)
        studio.select(link.tab)
        if problems:
            studio.show_error("This link: " + "; ".join(problems))
        return problems

    def _prefill_media(self, tab: str, body: dict[str, Any]) -> list[str]:
        studio: Any = self
        panel = studio.images if tab == "Images" else studio.videos
        try:
            panel.load({"model": panel.model, **body})
        except (ValueError, KeyError) as exc:
            return [f"model: {exc}"]
        errors = [p.message for p in panel.form_problems if p.error]
        panel.attempted = bool(errors)  # the panel shows each bad field under it
        return errors

    def _prefill_chat(self, body: dict[str, Any]) -> list[str]:
        studio: Any = self
        from mediagen_nb.widgets._chat_options import model_groups

        problems = [
            f"{name}: a chat link sets only model and prompt"
            for name in sorted(set(body) - {"model", "prompt"})
        ]
        values = dict(studio.chat.values)
        if "prompt" in body:
            values["message"] = str(body["prompt"])
        if "model" in body:
            known = {o["value"] for g in model_groups() for o in g["options"]}
            if body["model"] in known:
                values["model"] = body["model"]
            else:
                problems.append(f"model: {body['model']!r} is not a chat model of the catalog")
        studio.chat.values = values
        return problems

    RUNNING = ("queued", "processing", "started")
    """Item statuses of work under way (a task, a chat reply being written)."""

    def update_busy(self) -> bool:
        """Set ``busy`` from the history: an item of this session still under way, or a
        write the browser has not kept yet. Returns it."""
        from mediagen_nb.history import ledger
        from mediagen_nb.history._browser import browser_store

        studio: Any = self
        store = ledger()
        mine = store.keys_of()
        running = any((r["kind"], r["key"]) in mine for r in store.items(status=self.RUNNING))
        kept = browser_store()
        studio.busy = running or (kept is not None and kept.ledger is store and kept.unsaved)
        return bool(studio.busy)
