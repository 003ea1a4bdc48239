"""Importing the models builds no validators (``defer_build``): that work is paid on first use.

``import mediagen_nb.client`` must stay quick; building the pydantic validators of every
request and response model at import was a third of the package's own import time. Checked
in a fresh interpreter, since other tests in this process have already validated.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import sys
sys.path.insert(0, {root!r})
import pydantic
import mediagen_nb.client
import mediagen_nb.types as t

models = [
    value
    for name in t.__all__
    if isinstance(value := getattr(t, name), type) and issubclass(value, pydantic.BaseModel)
]
assert len(models) > 20, len(models)
built = [m.__name__ for m in models if m.__pydantic_complete__]
assert built == [], built

chunk = t.ChatCompletionChunk.model_validate(
    {{"id": "c", "choices": [{{"index": 0, "delta": {{"content": "hi"}}}}]}}
)
assert chunk.choices[0].delta.content == "hi"
problems = t.validate_request("/v1/chat/completions", {{"model": "gpt-5.4", "messages": 3}})
assert [str(p) for p in problems] == ["messages: must be a list (JSON array)"], problems
print("ok")
"""


def test_models_build_on_first_use_not_at_import() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
