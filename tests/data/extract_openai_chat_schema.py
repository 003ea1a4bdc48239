"""Write ``openai_chat_schemas.json``: the chat-completion response and chunk schemas.

Input: ``openapi.json`` of https://github.com/openai/openai-openapi (OpenAPI 3.1, so the
component schemas are JSON Schema 2020-12). Kept: ``CreateChatCompletionResponse``,
``CreateChatCompletionStreamResponse`` and every schema they reference, under ``$defs``;
dropped: descriptions, examples, titles and ``x-`` extension keys (not property names).
Run once by hand; the tests read the committed output and never fetch anything:
``python tests/data/extract_openai_chat_schema.py path/to/openapi.json COMMIT``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOTS = ("CreateChatCompletionResponse", "CreateChatCompletionStreamResponse")
DROP = frozenset({"description", "example", "examples", "title"})


def _strip(value: Any, *, in_properties: bool = False) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip(v, in_properties=k == "properties" and not in_properties)
            for k, v in value.items()
            if in_properties or (k not in DROP and not k.startswith("x-"))
        }
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def main(source: str, commit: str) -> None:
    schemas = json.loads(Path(source).read_text())["components"]["schemas"]
    kept: dict[str, Any] = {}

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.split("/")[-1] not in kept:
                name = ref.split("/")[-1]
                kept[name] = schemas[name]
                walk(schemas[name])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for root in ROOTS:
        kept[root] = schemas[root]
        walk(schemas[root])
    out = {
        "$comment": (
            "Chat-completion response and chunk schemas, with what they reference, from "
            "openapi.json of https://github.com/openai/openai-openapi at commit "
            f"{commit}; descriptions, examples, titles and x- keys removed by "
            "tests/data/extract_openai_chat_schema.py."
        ),
        "$defs": _strip(dict(sorted(kept.items()))),
    }
    text = json.dumps(out, indent=1, sort_keys=True).replace("#/components/schemas/", "#/$defs/")
    Path(__file__).with_name("openai_chat_schemas.json").write_text(text + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
