"""Request models of the image families (banana, image2) with every rule of the spec."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mediagen_nb.catalog._params import (
    BANANA_HIRES_MODELS,
    BANANA_MAX_REFS,
    IMAGE2_4K_RATIOS,
    IMAGE2_HIRES_MODELS,
    IMAGE2_MAX_REFS,
    IMAGE2_R_MAX_PIXELS,
    IMAGE2_SIZE_MAX_ASPECT,
    IMAGE2_SIZE_MAX_EDGE,
    IMAGE2_SIZE_MAX_PIXELS,
    IMAGE2_SIZE_MIN_PIXELS,
    IMAGE2_SIZE_MULTIPLE,
    BananaModel,
    BananaResolution,
    BananaSize,
    Image2Model,
    Image2Quality,
    Image2Ratio,
    Image2Resolution,
    options,
)
from mediagen_nb.types._problem import (
    Problem,
    RequestModel,
    RuleContext,
    check_model,
    check_prompt,
    check_references,
)

_SIZE = re.compile(r"([0-9]{1,12})x([0-9]{1,12})", re.ASCII)
_LONG_SIZE = re.compile(r"([0-9]+)x([0-9]+)", re.ASCII)
"""WIDTHxHEIGHT whose edges are too long to be sizes: out of range, not malformed."""


class BananaRequest(RequestModel):
    """``POST /v1/banana/images``."""

    model: str
    prompt: str
    resolution: BananaResolution | None = None
    size: BananaSize | None = None
    image_urls: list[str] | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        known: tuple[str, ...] = options(BananaModel)
        yield from check_model(self.model, known, "banana", ctx, family_id="banana")
        yield from check_prompt(self.prompt)
        hires_unknown = self.model not in known  # newer model: do not guess its limits
        hires = self.resolution in ("2k", "4k")
        if hires and not hires_unknown and self.model not in BANANA_HIRES_MODELS:
            yield Problem(
                "resolution",
                f"'{self.resolution}' is only available on nano-banana-pro and "
                f"nano-banana-pro-stable; use '1k' with {self.model}",
            )
        yield from check_references(
            self.image_urls, "image_urls", max_items=BANANA_MAX_REFS, allow_asset=False
        )
        yield from self.unknown_field_warnings("banana")


def parse_size(size: str) -> tuple[int, int] | None:
    """``"1024x1536"`` -> ``(1024, 1536)``; None when it is not WIDTHxHEIGHT.

    Decision (the spec writes ``{width}x{height}`` in pixels): ASCII digits ``0-9`` only, a
    lower-case ``x``, nothing before or after (no spaces, signs, trailing newline, fullwidth
    or Arabic-Indic digits, which Python's ``\\d`` and ``int`` would accept); at most 12
    digits per edge (longer numbers are not sizes, and ``int`` refuses over 4,300 digits).
    """
    match = _SIZE.fullmatch(size)
    if not match:
        return None
    return int(match.group(1)), int(match.group(2))


def size_problems(size: str, field: str = "size") -> Iterator[Problem]:
    """The image2 ``size`` rules: edges, multiples of 16, aspect and total pixels."""
    parsed = parse_size(size)
    if parsed is None:
        long_size = _LONG_SIZE.fullmatch(size)
        if long_size is None:
            yield Problem(field, "must be WIDTHxHEIGHT in pixels, e.g. '1024x1536'")
        else:
            digits = max(len(long_size.group(1)), len(long_size.group(2)))
            got = f"got a {digits}-digit number"
            yield Problem(field, f"each edge must be at most {IMAGE2_SIZE_MAX_EDGE} px ({got})")
        return
    width, height = parsed
    if width == 0 or height == 0:
        yield Problem(field, "edges must be positive")
        return
    if max(width, height) > IMAGE2_SIZE_MAX_EDGE:
        yield Problem(field, f"each edge must be at most {IMAGE2_SIZE_MAX_EDGE} px")
    if width % IMAGE2_SIZE_MULTIPLE or height % IMAGE2_SIZE_MULTIPLE:
        yield Problem(field, f"both edges must be multiples of {IMAGE2_SIZE_MULTIPLE}")
    if max(width, height) / min(width, height) > IMAGE2_SIZE_MAX_ASPECT:
        yield Problem(field, "long edge must be at most 3 times the short edge")
    pixels = width * height
    if not IMAGE2_SIZE_MIN_PIXELS <= pixels <= IMAGE2_SIZE_MAX_PIXELS:
        yield Problem(
            field,
            f"total pixels must be between {IMAGE2_SIZE_MIN_PIXELS:,} and "
            f"{IMAGE2_SIZE_MAX_PIXELS:,} (got {pixels:,})",
        )


class Image2Request(RequestModel):
    """``POST /v1/image2/images``."""

    model: str
    prompt: str
    quality: Image2Quality | None = None
    ratio: Image2Ratio | None = None
    resolution: Image2Resolution | None = None
    size: str | None = None
    image_urls: list[str] | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        known: tuple[str, ...] = options(Image2Model)
        yield from check_model(self.model, known, "image2", ctx, family_id="image2")
        yield from check_prompt(self.prompt)
        model_known = self.model in known
        if self.quality is not None and self.model == "gpt-image-2-r":
            yield Problem(
                "quality", "applies only to gpt-image-2; gpt-image-2-r ignores it", "warning"
            )
        if self.size is not None:
            yield from size_problems(self.size)
            parsed = parse_size(self.size)
            if (
                self.model == "gpt-image-2-r"
                and parsed
                and parsed[0] * parsed[1] > IMAGE2_R_MAX_PIXELS
            ):
                yield Problem(
                    "size",
                    f"gpt-image-2-r renders at most 1K: at most {IMAGE2_R_MAX_PIXELS:,} pixels "
                    "(e.g. 1536x1024)",
                )
            if self.resolution is not None or self.ratio is not None:
                yield Problem(
                    "size", "overrides resolution and ratio; those are ignored", "warning"
                )
        elif self.resolution is not None:
            if self.ratio is None:
                yield Problem("ratio", "is required when resolution is set")
            hires = self.resolution in ("2k", "4k")
            if hires and model_known and self.model not in IMAGE2_HIRES_MODELS:
                yield Problem(
                    "resolution",
                    f"'{self.resolution}' is only available on gpt-image-2; "
                    "gpt-image-2-r renders at most 1k",
                )
            wide = self.ratio is None or self.ratio in IMAGE2_4K_RATIOS
            if self.resolution == "4k" and not wide:
                allowed = ", ".join(IMAGE2_4K_RATIOS[:-1]) + " or " + IMAGE2_4K_RATIOS[-1]
                yield Problem("resolution", f"'4k' needs ratio {allowed}")
        max_refs = IMAGE2_MAX_REFS.get(self.model, max(IMAGE2_MAX_REFS.values()))
        yield from check_references(
            self.image_urls,
            "image_urls",
            max_items=max_refs,
            limit_reason=f"for {self.model}",
            allow_asset=False,
        )
        yield from self.unknown_field_warnings("image2")
