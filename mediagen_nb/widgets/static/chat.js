// Chat transcript front end for mediagen_nb (hand-written ES module, no build step, no CDN).
//
// Model state (synced from the kernel):
//   turns      list of {role, text, state, usage, error, model, attachments}
//   live_index index of the turn being streamed, or -1
//   live_text  full text of that turn so far (the kernel batches updates, <= 20 per second)
//   live_seq   sequence number of live_text; older updates are ignored
//
// Markdown is rendered by the small renderer below: the text is HTML-escaped FIRST, then
// headings, bold/italic, code spans, fenced code, lists, paragraphs and http(s)/mailto links
// are recognised on the escaped text, so no markup from the model can reach the page.

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

function usageText(usage) {
  if (!usage) return "";
  const parts = Object.entries(usage)
    .filter(([, v]) => typeof v === "number")
    .map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`);
  return parts.length ? `usage: ${parts.join(" · ")}` : "";
}

function turnNode(turn, text, streaming) {
  const node = document.createElement("div");
  const state = streaming ? "streaming" : turn.state || "complete";
  node.className = `mediagen-turn mediagen-turn-${turn.role}`;
  node.dataset.role = turn.role;
  node.dataset.state = state;
  node.dataset.done = String(!streaming && state !== "streaming");
  const head = document.createElement("div");
  head.className = "mediagen-turn-head";
  head.textContent = turn.role === "user" ? "You" : turn.model || "assistant";
  const body = document.createElement("div");
  body.className = "mediagen-turn-body";
  body.innerHTML = renderMarkdown(text || "");
  node.append(head, body);
  for (const url of turn.attachments || []) {
    const a = document.createElement("div");
    a.className = "mediagen-attachment";
    a.textContent = `📎 ${url}`;
    node.append(a);
  }
  const foot = document.createElement("div");
  foot.className = "mediagen-turn-foot";
  const notes = [];
  if (state === "stopped") notes.push("stopped; partial answer kept");
  if (turn.error) notes.push(turn.error);
  const usage = usageText(turn.usage);
  if (usage) notes.push(usage);
  foot.textContent = notes.join(" — ");
  if (notes.length) node.append(foot);
  return node;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "mediagen-chat";
  const log = document.createElement("div");
  log.className = "mediagen-chat-log";
  root.append(log);
  el.append(root);
  let shownSeq = -1;

  const draw = () => {
    const turns = model.get("turns") || [];
    const live = model.get("live_index");
    log.replaceChildren(
      ...turns.map((turn, i) =>
        i === live ? turnNode(turn, model.get("live_text"), true) : turnNode(turn, turn.text, false),
      ),
    );
    shownSeq = model.get("live_seq");
    root.dataset.turns = String(turns.length);
    log.scrollTop = log.scrollHeight;
  };

  const drawLive = () => {
    const seq = model.get("live_seq");
    const live = model.get("live_index");
    if (seq <= shownSeq || live < 0) return;
    const node = log.children[live];
    if (!node) return draw();
    node.querySelector(".mediagen-turn-body").innerHTML = renderMarkdown(model.get("live_text"));
    shownSeq = seq;
    log.scrollTop = log.scrollHeight;
  };

  model.on("change:turns", draw);
  model.on("change:live_index", draw);
  model.on("change:live_text", drawLive);
  draw();
  return () => {
    model.off("change:turns", draw);
    model.off("change:live_index", draw);
    model.off("change:live_text", drawLive);
  };
}

export default { render };
