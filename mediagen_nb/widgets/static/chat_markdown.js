// Markdown for the chat panel (hand-written, no build step, no CDN). The text is HTML-escaped
// FIRST, then headings, bold/italic, code spans, fenced code, lists, paragraphs and
// http(s)/mailto links are recognised on the escaped text, so no markup from the model can
// reach the page. `_frontend.esm("chat_markdown.js", "chat.js")` puts it before the panel.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

const SLOT = "\u0000";

// Inline markup of one escaped line: code spans and links are lifted out into slots first so
// emphasis markers inside them (URLs with underscores, `a*b`) are left alone.
export function renderInline(escaped) {
  const slots = [];
  const keep = (html) => {
    slots.push(html);
    return `${SLOT}${slots.length - 1}${SLOT}`;
  };
  let s = escaped.replace(/`([^`]+)`/g, (_m, code) => keep(`<code>${code}</code>`));
  s = s.replace(
    /\[([^\]\n]+)\]\(((?:https?:\/\/|mailto:)[^\s()]+)\)/g,
    (_m, label, href) => keep(`<a href="${href}" target="_blank" rel="noopener noreferrer">${label}</a>`),
  );
  s = s.replace(/\*\*([^*]+?)\*\*/g, "<strong>$1</strong>");
  s = s.replace(/(^|[^\w])__([^_]+?)__(?=[^\w]|$)/g, "$1<strong>$2</strong>");
  s = s.replace(/\*([^*\s][^*]*?)\*/g, "<em>$1</em>");
  s = s.replace(/(^|[^\w])_([^_\s][^_]*?)_(?=[^\w]|$)/g, "$1<em>$2</em>");
  return s.replace(new RegExp(`${SLOT}(\\d+)${SLOT}`, "g"), (_m, i) => slots[Number(i)]);
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
