"""Token log-probabilities for chat-completions ``logprobs`` / ``top_logprobs``.

The emulator has no model, so the numbers are made up, but plausibly and deterministically:
the text is cut into tokens the way OpenAI's are written (a word or punctuation mark with
the spaces before it), each token's ``logprob`` comes from a hash of the token and its
position (between about -2.5 and 0, most near 0, as a confident model's are), and its
``top_logprobs`` list the token itself first, then alternatives (the token in other case,
or with its last letter dropped, or stock words) with strictly lower values. ``bytes`` are
the token's UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

_PIECE = re.compile(r"\s*(?:[^\W_]+|[^\w\s]|_+)|\s+$")
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
