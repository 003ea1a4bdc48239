// Markdown for the chat panel (hand-written, no build step, no CDN). The text is HTML-escaped
// FIRST, then headings, bold/italic, code spans, fenced code, lists, paragraphs and
// http(s)/mailto links are recognised on the escaped text, so no markup from the model can
// reach the page. `_frontend.esm("chat_markdown.js", "chat.js")` puts it before the panel.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const NUL = new RegExp(String.fromCharCode(0), "g");

// NUL becomes U+FFFD (as browsers show it), so the slots below cannot be faked by the text.
export function escapeHtml(text) {
  return String(text)
    .replace(/[&<>"']/g, (ch) => ESCAPES[ch])
    .replace(NUL, "\uFFFD");
}

const SLOT = "\u0000"; // never in escaped text (escapeHtml replaces it), so slots cannot be faked
const LINK_SCHEMES = ["https://", "http://", "mailto:"];

// The inline scanner's work: characters looked at since the page loaded (tests read it to
// check that rendering is linear). Every pass below walks its line left to right with
// indexOf and never steps back more than a delimiter's width, so a run of `[`, `*`, `_` or
// backticks costs a few looks per character, not one scan per opening mark.
export const markdownWork = { steps: 0 };

function mdFind(s, needle, from) {
  const at = s.indexOf(needle, from);
  markdownWork.steps += (at < 0 ? s.length : at) - from + 1;
  return at;
}

// `code` spans (non-empty, no backtick inside), each replaced by keep(html).
function mdCodeSpans(s, keep) {
  let out = "";
  let done = 0;
  let from = 0;
  for (;;) {
    const open = mdFind(s, "`", from);
    const close = open < 0 ? -1 : mdFind(s, "`", open + 1);
    if (close < 0) break;
    if (close === open + 1) {
      from = close; // empty: the second backtick may open the next span
      continue;
    }
    out += s.slice(done, open) + keep(`<code>${s.slice(open + 1, close)}</code>`);
    done = from = close + 1;
  }
  return out + s.slice(done);
}

// The end of a link target starting at `at` (a scheme, then no space or parenthesis), or -1.
function mdLinkEnd(s, at) {
  const scheme = LINK_SCHEMES.find((prefix) => s.startsWith(prefix, at));
  if (!scheme) return -1;
  let end = at;
  while (end < s.length && !/[\s()]/.test(s[end])) end++;
  markdownWork.steps += end - at + 1;
  return end > at + scheme.length && s[end] === ")" ? end : -1;
}

// [label](http(s) or mailto target): the label runs from the first `[` to the next `]`; when
// that is no link, no `[` before that `]` starts one either, so the scan goes on after it.
function mdLinks(s, keep) {
  let out = "";
  let done = 0;
  let from = 0;
  for (;;) {
    const open = mdFind(s, "[", from);
    const close = open < 0 ? -1 : mdFind(s, "]", open + 1);
    if (close < 0) break;
    const end = close > open + 1 && s[close + 1] === "(" ? mdLinkEnd(s, close + 2) : -1;
    if (end < 0) {
      from = close === open + 1 ? open + 1 : close + 1;
      continue;
    }
    const label = s.slice(open + 1, close);
    const href = s.slice(close + 2, end);
    out += s.slice(done, open) + keep(`<a href="${href}" target="_blank" rel="noopener noreferrer">${label}</a>`);
    done = from = end + 1;
  }
  return out + s.slice(done);
}

const mdWord = (ch) => ch !== undefined && /\w/.test(ch);

// Emphasis with `mark` (`*` or `_`) of `width` 1 or 2: the text up to the next mark, not
// starting with a mark (nor a space for width 1); `_` also needs a non-word character (or the
// line's edge) on both outer sides, as in `snake_case_name` staying as it is.
function mdEmphasis(s, mark, width, tag) {
  const delimiter = mark.repeat(width);
  const edges = mark === "_";
  let out = "";
  let done = 0;
  let from = 0;
  for (;;) {
    const open = mdFind(s, delimiter, from);
    if (open < 0) break;
    from = open + 1;
    if (edges && open > 0 && (open - 1 < done || mdWord(s[open - 1]))) continue;
    const first = s[open + width];
    if (first === undefined || first === mark || (width === 1 && /\s/.test(first))) continue;
    const close = mdFind(s, mark, open + width + 1);
    if (close < 0) break;
    const closed = width === 1 || s[close + 1] === mark;
    if (!closed || (edges && mdWord(s[close + width]))) {
      from = close;
      continue;
    }
    out += `${s.slice(done, open)}<${tag}>${s.slice(open + width, close)}</${tag}>`;
    done = from = close + width;
  }
  return out + s.slice(done);
}

// Inline markup of one escaped line: code spans and links are lifted out into slots first so
// emphasis markers inside them (URLs with underscores, `a*b`) are left alone.
export function renderInline(escaped) {
  const slots = [];
  const keep = (html) => {
    slots.push(html);
    return `${SLOT}${slots.length - 1}${SLOT}`;
  };
  let s = mdLinks(mdCodeSpans(escaped, keep), keep);
  s = mdEmphasis(s, "*", 2, "strong");
  s = mdEmphasis(s, "_", 2, "strong");
  s = mdEmphasis(s, "*", 1, "em");
  s = mdEmphasis(s, "_", 1, "em");
  return s
    .split(SLOT)
    .map((part, i) => (i % 2 ? slots[Number(part)] : part))
    .join("");
}

// Markdown -> HTML. An unclosed fence (common while streaming) runs to the end of the text.
export function renderMarkdown(text) {
  const lines = escapeHtml(text).split("\n");
  const out = [];
  let para = [];
  let list = null; // {tag, items}
  const flushPara = () => {
    if (para.length) out.push(`<p>${para.map(renderInline).join("<br>")}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((i) => `<li>${renderInline(i)}</li>`).join("")}</${list.tag}>`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*```\s*([\w+-]*)\s*$/);
    if (fence) {
      flushPara();
      flushList();
      const body = [];
      i++;
      while (i < lines.length && !/^\s*```\s*$/.test(lines[i])) body.push(lines[i++]);
      const lang = fence[1] ? ` class="language-${fence[1]}"` : "";
      out.push(`<pre><code${lang}>${body.join("\n")}</code></pre>`);
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      flushPara();
      flushList();
      const level = heading[1].length;
      out.push(`<h${level}>${renderInline(heading[2])}</h${level}>`);
      continue;
    }
    const bullet = line.match(/^\s*[-*+]\s+(.*)$/);
    const numbered = line.match(/^\s*\d+[.)]\s+(.*)$/);
    if (bullet || numbered) {
      flushPara();
      const tag = bullet ? "ul" : "ol";
      if (list && list.tag !== tag) flushList();
      if (!list) list = { tag, items: [] };
      list.items.push((bullet || numbered)[1]);
      continue;
    }
    if (!line.trim()) {
      flushPara();
      flushList();
      continue;
    }
    flushList();
    para.push(line);
  }
  flushPara();
  flushList();
  return out.join("\n");
}
