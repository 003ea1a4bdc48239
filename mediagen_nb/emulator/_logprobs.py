"""Token log-probabilities for chat-completions ``logprobs`` / ``top_logprobs``.

Made up, plausibly and deterministically (the emulator has no model), and bounded by
``MAX_TOKEN_CHARS`` and ``MAX_LOGPROB_ENTRIES``.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import TYPE_CHECKING, Any

from mediagen_nb.emulator._schema_limits import SchemaLimitError

if TYPE_CHECKING:
    from mediagen_nb.emulator._chat_reply import PlannedReply

MAX_TOKEN_CHARS = 16
"""Longest token (a longer word is cut into several)."""
MAX_LOGPROB_ENTRIES = 16_384
"""Entries (a token's or one of its alternatives') in one response's logprobs, in all."""
_PIECE = re.compile(r"\s{0,16}(?:[^\W_]{1,16}|[^\w\s]|_{1,16})|\s{1,16}")
_STOCK = ("the", " and", ",", ".", " a", " of", " to", " is")


def token_pieces(text: str) -> list[str]:
    """``text`` cut into tokens that join back to it (spaces go with the next token)."""
    return _PIECE.findall(text)


def _logprob(token: str, position: int) -> float:
    digest = hashlib.sha256(f"{position}:{token}".encode()).digest()
    unit = int.from_bytes(digest[:4], "big") / 2**32
    return min(-1e-6, round(math.log(0.08 + 0.92 * (1 - unit**3)), 6))


def _entry(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8"))}


def _alternatives(token: str) -> list[str]:
    variants = [token.swapcase(), token[:-1] if len(token.strip()) > 1 else token + "s"]
    return [v for v in dict.fromkeys([*variants, *_STOCK]) if v and v != token]


def logprobs_for(text: str, top: int) -> list[dict[str, Any]]:
    """The ``logprobs.content`` list of ``text``."""
    out: list[dict[str, Any]] = []
    for position, token in enumerate(token_pieces(text)):
        chosen = _logprob(token, position)
        entry = _entry(token, chosen)
        alternatives = [entry.copy()] if top else []
        for rank, other in enumerate(_alternatives(token)[: max(0, top - 1)], start=1):
            alternatives.append(_entry(other, round(chosen - 1.5 * rank - 0.25, 6)))
        entry["top_logprobs"] = alternatives
        out.append(entry)
    return out


def check_logprobs(replies: list[PlannedReply], top: int | None) -> None:
    """Refuse logprobs that would pass ``MAX_LOGPROB_ENTRIES`` (None: none asked for).

    Args:
        replies: The choices of one response.
        top: ``top_logprobs`` (0 with ``logprobs`` alone), or None without logprobs.

    Raises:
        SchemaLimitError: Naming ``top_logprobs`` and the limit.
    """
    if top is None:
        return
    tokens = sum(len(token_pieces(r.text)) for r in replies)
    if tokens * (1 + top) > MAX_LOGPROB_ENTRIES:
        raise SchemaLimitError(
            "top_logprobs",
            f"{len(replies)} choice(s) of {tokens} tokens in all with {top} alternatives each "
            f"would be {tokens * (1 + top)} log-probabilities; the emulator sends at most "
            f"{MAX_LOGPROB_ENTRIES}: ask for fewer choices or top_logprobs, or set max_tokens",
        )
