"""What the browser tests measure on a rendered panel: axe-core, text contrast, overflow.

All three work on one panel root (a Playwright locator), inside a shadow root too (marimo),
and return plain data so a failing assertion prints the element, the numbers and the rule.

Contrast is computed from the rendered styles, not taken from axe (which skips text on
layered or semi-transparent backgrounds): for every visible element with its own text (a
text node, a form control's value or placeholder), the text colour is composited over the
first opaque background found walking up the tree (crossing shadow roots), each
semi-transparent background on the way blended in; the page canvas is the last resort.
Colours are normalised by a canvas, so ``color-mix()``, ``color(srgb ...)`` and ``oklch()``
all count. Disabled controls are exempt (WCAG 1.4.3 "inactive user interface components").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator

AXE = Axe()
BLOCKING = ("critical", "serious")
NORMAL_RATIO = 4.5
LARGE_RATIO = 3.0

COLOUR_HELPERS = """  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const cache = new Map();
  const rgba = (css) => {
    if (cache.has(css)) return cache.get(css);
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000';
    ctx.fillStyle = css;
    ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data;
    const out = [d[0], d[1], d[2], d[3] / 255];
    cache.set(css, out);
    return out;
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const up = (el) => el.parentElement || (el.getRootNode() && el.getRootNode().host) || null;
  const background = (el) => {
    const layers = [];
    for (let node = el; node; node = up(node)) {
      const c = rgba(getComputedStyle(node).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let base = rgba(getComputedStyle(document.documentElement).backgroundColor);
    if (base[3] < 1) base = rgba(getComputedStyle(document.body).backgroundColor);
    if (base[3] < 1) base = matchMedia('(prefers-color-scheme: dark)').matches
      && !document.body.dataset.jpThemeLight ? [18, 18, 18, 1] : [255, 255, 255, 1];
    let colour = base;
    for (let i = layers.length - 1; i >= 0; i--) colour = over(layers[i], colour);
    return colour;
  };
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
"""

CONTRAST_JS = (
    """(root) => {
"""
    + COLOUR_HELPERS
    + """  const visible = (el) => {
    if (!el.getClientRects().length) return false;
    for (let node = el; node; node = up(node)) {
      const s = getComputedStyle(node);
      if (s.visibility === 'hidden' || s.display === 'none' || Number(s.opacity) === 0)
        return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.getAttribute('name')) s += `[name=${el.getAttribute('name')}]`;
    const cls = [...el.classList].slice(0, 3).join('.');
    return cls ? `${s}.${cls}` : s;
  };
  const results = [];
  const all = [root, ...root.querySelectorAll('*')];
  for (const el of all) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'svg', 'SVG', 'IMG', 'VIDEO', 'CANVAS'].includes(el.tagName))
      continue;
    let text = '';
    let pseudo = null;
    const control = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
    if (control) {
      if (['hidden', 'file', 'checkbox', 'radio', 'range', 'color'].includes(el.type)) continue;
      if (el.tagName === 'SELECT') text = el.selectedOptions[0] ? el.selectedOptions[0].text : '';
      else if (el.value) text = el.value;
      else if (el.placeholder) { text = el.placeholder; pseudo = '::placeholder'; }
    } else {
      for (const n of el.childNodes)
        if (n.nodeType === Node.TEXT_NODE) text += n.textContent;
    }
    text = text.trim();
    if (!text || !visible(el)) continue;
    if (el.closest(':disabled, [aria-disabled=true]')) continue;
    const style = getComputedStyle(el, pseudo);
    const bg = background(el);
    let fg = rgba(style.color);
    fg = over(fg, bg);
    const size = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const large = size >= 24 || (size >= 18.66 && bold);
    const r = ratio(fg, bg);
    results.push({
      element: name(el), text: text.slice(0, 40), ratio: Math.round(r * 100) / 100,
      required: large ? 3 : 4.5, fg: fg.slice(0, 3), bg: bg.slice(0, 3),
      size, weight: style.fontWeight,
    });
  }
  return results;
}"""
)

BACKGROUND_JS = (
    """(root) => {
"""
    + COLOUR_HELPERS
    + """
  return lum(background(root));
}"""
)

OVERFLOW_JS = """(root) => {
  const up = (el) => el.parentElement || (el.getRootNode() && el.getRootNode().host) || null;
  const shown = (el) => {
    if (!el.getClientRects().length) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.getAttribute('name')) s += `[name=${el.getAttribute('name')}]`;
    if (el.dataset && el.dataset.mgAction) s += `[data-mg-action=${el.dataset.mgAction}]`;
    const cls = [...el.classList].slice(0, 3).join('.');
    return cls ? `${s}.${cls}` : s;
  };
  const box = root.getBoundingClientRect();
  const out = {width: box.width, rootScroll: root.scrollWidth - root.clientWidth,
               overflowing: [], unreachable: []};
  for (const el of root.querySelectorAll('*')) {
    if (!shown(el)) continue;
    // inside a deliberate horizontal scroll area between it and the root: that area counts
    let area = null;
    for (let n = up(el); n && n !== root; n = up(n)) if (scrolls(n)) { area = n; break; }
    const r = el.getBoundingClientRect();
    const control = el.matches('button, input:not([type=hidden]), select, textarea, a[href],'
                               + ' [tabindex]:not([tabindex="-1"])');
    if (area) continue;
    if (r.right > box.right + 1 || r.left < box.left - 1) {
      out.overflowing.push({element: name(el), left: Math.round(r.left - box.left),
                            right: Math.round(r.right - box.left)});
      continue;
    }
    if (!control) continue;
    // a control clipped by an ancestor that hides overflow cannot be reached
    for (let n = up(el); n && n !== root; n = up(n)) {
      const s = getComputedStyle(n);
      if (s.overflowX === 'hidden' || s.overflowX === 'clip') {
        const a = n.getBoundingClientRect();
        if (r.right > a.right + 1 || r.left < a.left - 1) {
          out.unreachable.push({element: name(el), clippedBy: name(n),
                                right: Math.round(r.right - a.left), width: Math.round(a.width)});
          break;
        }
      }
    }
  }
  return out;
}"""


@dataclass(frozen=True)
class Contrast:
    """Every text element's measured ratio; ``failures`` are those under their minimum."""

    measured: list[dict[str, Any]]

    @property
    def failures(self) -> list[dict[str, Any]]:
        return [m for m in self.measured if m["ratio"] < m["required"]]

    @property
    def lowest(self) -> float:
        return min((m["ratio"] for m in self.measured), default=0.0)


def contrast(panel: Locator) -> Contrast:
    measured: list[dict[str, Any]] = panel.evaluate(CONTRAST_JS)
    return Contrast(measured)


def background_luminance(panel: Locator) -> float:
    """Relative luminance (0 black .. 1 white) of the opaque colour behind ``panel``."""
    value: float = panel.evaluate(BACKGROUND_JS)
    return value


def axe_violations(panel: Locator) -> list[dict[str, Any]]:
    """axe-core's critical and serious violations inside ``panel`` (its own rules, all of
    them), each as ``{"id", "impact", "nodes": [target...]}``."""
    # injected into the panel's own window: a frame's (the in-browser playground) or the page's
    if not panel.evaluate("() => typeof window.axe !== 'undefined'"):
        panel.evaluate("(el, source) => { window.eval(source); }", AXE.axe_script)
    result: dict[str, Any] = panel.evaluate("(el) => axe.run(el, {resultTypes: ['violations']})")
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "nodes": [n["target"] for n in v["nodes"]][:5],
            "help": v["help"],
        }
        for v in result["violations"]
        if v["impact"] in BLOCKING
    ]


def overflow(panel: Locator) -> dict[str, Any]:
    """Elements sticking out of the panel sideways (outside any horizontal scroll area), and
    controls cut off by an ancestor that hides its overflow."""
    report: dict[str, Any] = panel.evaluate(OVERFLOW_JS)
    return report
