"""Compare in the Chat panel: one message to two to four models, their answers streamed at once.

The row is a chat sweep over ``model``: each cell streams in its own asyncio task, recorded
with the sweep's ``sweep_id``; ``compare_answers`` carries the answers (at most 20 pushes a
second). One Stop stops them all; each keeps its partial text.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import traitlets as t

from mediagen_nb.widgets._base import Throttle, describe_error
from mediagen_nb.widgets._chat_options import model_groups
from mediagen_nb.widgets._chat_stream import Reply

if TYPE_CHECKING:
    from mediagen_nb.sweeps import SweepPlan

STREAM_PUSHES_PER_S = 20.0


class ChatCompareMixin(t.HasTraits):
    """The Compare switch of the Chat panel (mixed into ``ChatPanel``)."""

    compare = t.Bool(False).tag(sync=True)
    """The Compare switch: Send asks every model of ``compare_models``."""
    compare_choices: t.List[Any] = t.List().tag(sync=True)
    """The text models one can compare: ``{"value", "label", "group"}``."""
    compare_models = t.List(t.Unicode()).tag(sync=True)
    """The chosen models (two to four), in the order of their answers."""
    compare_answers: t.List[Any] = t.List().tag(sync=True)
    """The last compare's answers: ``{"model", "title", "text", "state", "error"}``."""
    compare_code = t.Unicode("").tag(sync=True)
    """The ``mg.sweep("chat", ...)`` call of the last compare (Copy as code)."""
    compare_sweep = t.Unicode("").tag(sync=True)
    """The ``sweep_id`` of the last compare (the History panel's filter)."""

    if TYPE_CHECKING:
        values: Any
        session: Any

        def spawn(self, coro: Any, *, name: str | None = None) -> asyncio.Task[Any]: ...
        def on_action(self, name: str, handler: Any) -> None: ...
        def hold_sync(self) -> Any: ...
        def _revalidate(self) -> None: ...

    def _setup_chat_compare(self) -> None:
        self._all_choices = [
            {"value": o["value"], "label": o["label"], "group": g["label"]}
            for g in model_groups()
            for o in g["options"]
        ]
        self.compare_choices = list(self._all_choices)
        self._answers: list[dict[str, Any]] = []
        self._streams: list[asyncio.Task[None]] = []
        self._compare_throttle = Throttle(self, self._push_answers, rate=STREAM_PUSHES_PER_S)
        self.compare_plan: SweepPlan | None = None
        """The last compare's plan (its cells and ``sweep_id``)."""
        self.on_action("compare", lambda m: self.set_compare(bool(m.get("on"))))
        self.on_action(
            "compare_models", lambda m: self.set_compare_models(list(m.get("models") or []))
        )

    def set_compare(self, on: bool, models: list[str] | None = None) -> None:
        """Turn Compare on (with ``models``, or the form's model and the next one) or off."""
        if on:
            names = [str(c["value"]) for c in self.compare_choices]
            current = str(self.values.get("model") or names[0])
            pair = [current, next(n for n in names if n != current)]
            self.set_compare_models(models or list(self.compare_models) or pair)
        self.compare = on

    def set_compare_models(self, models: list[str]) -> None:
        """Choose the models to compare (two to four text models of the catalog).

        Raises:
            ValueError: Fewer than two, more than four, or a model the catalog does not list.
        """
        from mediagen_nb.sweeps._compare import MAX_MODELS, MIN_MODELS

        models = list(dict.fromkeys(models))
        known = {str(c["value"]) for c in self.compare_choices}
        unknown = [m for m in models if m not in known]
        if unknown:
            raise ValueError(f"Compare: {unknown[0]!r} is not a text model of the catalog")
        if not MIN_MODELS <= len(models) <= MAX_MODELS:
            raise ValueError(
                f"Compare: pick {MIN_MODELS} to {MAX_MODELS} models, not {len(models)}"
            )
        self.compare_models = models

    def compare_allowed(self, models: frozenset[str] | None) -> None:
        """Offer only a class's models (None: every model); Compare ends if two are not left."""
        from mediagen_nb.widgets._compare import apply_allowed

        apply_allowed(self, self._all_choices, models)

    @property
    def comparing(self) -> bool:
        """True while a compare's answers stream."""
        return any(not task.done() for task in self._streams)

    def send_compare(self, text: str) -> list[asyncio.Task[None]]:
        """Ask every chosen model ``text`` at once (a chat sweep); one task per answer.

        Raises:
            ValueError: No message, or a model the sweep finds invalid (it names the rule).
        """
        from mediagen_nb.sweeps import sweep

        if not text.strip():
            raise ValueError("Message: type a message to compare")
        params: dict[str, Any] = {"model": list(self.compare_models), "prompt": text}
        system = str(self.values.get("system") or "").strip()
        if system:
            params["system"] = system
        plan = sweep("chat", **params)
        if plan.invalid:
            raise ValueError(plan.invalid[0].reason())
        self.compare_plan = plan
        titles = {str(c["value"]): str(c["label"]) for c in self.compare_choices}
        self._answers = [
            {
                "model": c.model,
                "title": titles.get(c.model, c.model),
                "text": "",
                "state": "streaming",
                "error": "",
            }
            for c in plan.cells
        ]
        self._streams = [
            self.spawn(self._stream_cell(plan, c.index), name=f"compare {c.model}")
            for c in plan.cells
        ]
        with self.hold_sync():
            self.compare_code = plan.code()
            self.compare_sweep = plan.sweep_id
            self._compare_throttle.flush()
            self._revalidate()
        for task in self._streams:
            task.add_done_callback(lambda _t: self._compare_ended())
        return list(self._streams)

    async def _stream_cell(self, plan: SweepPlan, index: int) -> None:
        from mediagen_nb.client import recording_tags

        answer = self._answers[index]
        reply = Reply()
        stream: Any = None
        try:
            with recording_tags(sweep_id=plan.sweep_id, sweep_cell=index):
                stream = await self.session.client.chat.completions.create(
                    **plan.cells[index].body, stream=True, stream_options={"include_usage": True}
                )
                async for update in stream.events():
                    reply.feed(update)
                    answer["text"] = reply.text
                    self._compare_throttle.request()
            answer["state"] = "complete"
        except asyncio.CancelledError:
            if stream is not None:
                stream.close_reason = "stopped by the user"
                await stream.aclose()
            answer["state"] = "stopped"
            raise
        except Exception as exc:  # shown on the answer itself
            answer["state"], answer["error"] = "error", describe_error(exc)
        finally:
            answer["text"] = reply.text or answer["text"]
            self._compare_throttle.request()

    def stop_compare(self) -> bool:
        """Stop every answer still streaming (one Stop); False when none streams."""
        running = [task for task in self._streams if not task.done()]
        for task in running:
            task.cancel()
        return bool(running)

    def stop(self) -> None:
        """Stop the reply streaming, or every answer of a compare (one Stop for all)."""
        self.stop_compare()
        super().stop()  # type: ignore[misc]

    def _compare_ended(self) -> None:
        if not self.comparing:
            self._compare_throttle.flush()
            self._revalidate()

    def _push_answers(self) -> None:
        self.compare_answers = [dict(a) for a in self._answers]

    async def join_compare(self) -> None:
        """Wait until every answer of the last compare ended (stopped ones included)."""
        await asyncio.gather(*self._streams, return_exceptions=True)
        await self._compare_throttle.drain()
