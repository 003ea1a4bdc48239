"""``client.classroom``: what a classroom gateway says about the student using this client."""

from __future__ import annotations

from mediagen_nb.types import ClassroomMe

from ._context import ClientContext

ME_PATH = "/v1/classroom/me"


class Classroom:
    """The ``classroom`` namespace (a classroom gateway only; the service answers 404).

    Args:
        context: The client's shared context (made by ``AsyncClient``).
    """

    def __init__(self, context: ClientContext) -> None:
        self._ctx = context

    async def me(self) -> ClassroomMe:
        """``GET {base_url}/v1/classroom/me``: the student's name, allowed models, limits,
        usage (requests running included), what is left, and whether the class is paused.

        Returns:
            The gateway's answer, typed.

        Raises:
            NotFoundError: the base URL is not a classroom gateway.
            AuthenticationError: the gateway does not know this client's key.
        """
        data, _response = await self._ctx.core.request("GET", "base", ME_PATH, idempotent=True)
        return ClassroomMe.model_validate(data)
