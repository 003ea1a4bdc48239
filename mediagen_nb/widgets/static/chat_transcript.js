// The chat transcript (after the kit and chat_markdown.js; `_frontend.esm` puts chat.js after
// it): one node per turn of the `turns` trait, the live reply redrawn from `live_text` /
// `live_thinking` as it streams, tool calls with a box for each result, and the suggestions
// of an empty conversation.

const CHAT_STATE_TEXT = { streaming: "Writing…", stopped: "Stopped", error: "Failed" };

function chatUsage(usage) {
  if (!usage) return "";
  const n = (k) => (typeof usage[k] === "number" ? usage[k] : null);
  const input = n("prompt_tokens") ?? n("input_tokens");
  const output = n("completion_tokens") ?? n("output_tokens");
  const parts = [];
  if (input !== null) parts.push(`${input} in`);
  if (output !== null) parts.push(`${output} out`);
  return parts.length ? `${parts.join(" · ")} tokens` : "";
}

function chatBytes(n) {
  if (!n) return "";
  return n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

// Markdown into `node` (renderMarkdown escapes the text first); code blocks that scroll
// can be reached with the keyboard.
function chatMarkdown(node, text) {
  node.innerHTML = renderMarkdown(text || "");
  for (const pre of node.querySelectorAll("pre")) pre.tabIndex = 0;
}

// Focus inside a shadow root (marimo) shows as the host in document.activeElement.
function chatFocused(node) {
  return node.getRootNode().activeElement === node;
}

// Ctrl/Cmd+Enter runs `fn`; the key never reaches Jupyter (no cell runs, no mode switch).
function chatKeys(node, fn) {
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey || event.shiftKey)) {
      event.preventDefault();
      event.stopPropagation();
      if (event.ctrlKey || event.metaKey) fn();
    } else {
      event.stopPropagation();
    }
  });
}

/** An attachment as a chip, with its thumbnail when the browser can show one. */
function chatAttachmentChip(a, previews) {
  const thumb = a.source === "url" ? (a.kind === "image" ? a.url : null) : previews.get(`${a.label}:${a.size}`);
  const label = a.source === "file" ? `${a.label} (${chatBytes(a.size)})` : a.label;
  const chip = mgChip(label, "neutral");
  chip.classList.add("mg-chat__file");
  if (thumb) {
    const img = mgEl("img", { src: thumb, alt: "", class: "mg-chat__thumb" });
    img.addEventListener("error", () => img.remove()); // not an image the browser can show
    chip.prepend(img);
  }
  return chip;
}

/** The model's reasoning, folded: "Thinking · 120 words". */
function chatThinking(text, live) {
  const words = text ? `${text.trim().split(/\s+/).length} words` : "";
  return mgEl("details", { class: "mg-thinking" },
    mgEl("summary", {}, live ? "Thinking…" : "Thinking",
      words ? mgEl("span", { class: "mg-hint", text: ` · ${words}` }) : null),
    mgEl("div", { class: "mg-thinking__body", text, tabindex: "0" }));
}

/** One tool call: its arguments, and its result (or a box to type it while the turn waits). */
function chatToolCall(ctx, turn, call, boxes, submit) {
  let result = null;
  if (call.result !== null && call.result !== undefined) {
    result = mgEl("div", { class: "mg-toolcall__result" },
      mgEl("div", { class: "mg-toolcall__label", text: "Result" }),
      mgEl("pre", { text: call.result, tabindex: "0", "aria-label": `Result of ${call.name}` }));
  } else if (turn.waiting) {
    const id = mgId("mg-tool-result");
    const box = mgEl("textarea", {
      class: "mg-input mg-chat__mono",
      name: "tool-result",
      id,
      rows: 2,
      placeholder: 'e.g. {"temp_c": 18}',
      "data-call": call.id,
    });
    box.value = ctx.drafts.get(call.id) || "";
    chatKeys(box, () => submit());
    boxes.push(box);
    result = mgEl("div", { class: "mg-toolcall__result" },
      mgEl("label", { class: "mg-toolcall__label", for: id, text: `Result of ${call.name}` }), box);
  }
  const args = { class: "mg-toolcall__args", text: call.arguments, tabindex: "0" };
  args["aria-label"] = `Arguments of ${call.name}`;
  const group = { class: "mg-toolcall", role: "group", "data-call": call.id, "aria-label": `Tool call ${call.name}` };
  return mgEl("div", group,
    mgEl("header", { class: "mg-toolcall__head" },
      mgChip("Tool call", "accent"), mgEl("code", { class: "mg-toolcall__name", text: call.name })),
    mgEl("pre", args),
    result);
}

/** The tool calls of a turn, and "Send results" once every waiting result is typed. */
function chatToolCards(ctx, turn, index) {
  const calls = turn.tool_calls || [];
  if (!calls.length) return null;
  const boxes = [];
  const label = calls.length > 1 ? "Send results" : "Send result";
  const send = mgButton({ label, kind: "primary", action: "tool-results", onClick: () => submit() });
  const sync = () => {
    send.disabled = !boxes.every((b) => b.value.trim()) || ctx.model.get("can_stop");
  };
  function submit() {
    if (send.disabled) return;
    const results = {};
    for (const b of boxes) results[b.dataset.call] = b.value;
    ctx.act("tool-results", { turn: index, results });
  }
  const cards = calls.map((call) => chatToolCall(ctx, turn, call, boxes, submit));
  if (!boxes.length) return cards;
  for (const box of boxes) {
    box.addEventListener("input", () => {
      ctx.drafts.set(box.dataset.call, box.value);
      sync();
    });
  }
  sync();
  return [...cards, mgEl("div", { class: "mg-row mg-toolcall__submit" },
    mgEl("span", { class: "mg-hint", text: "Type what the tool returned; the model continues." }),
    mgEl("span", { class: "mg-spacer" }), send)];
}

/** A message of the user, with its attachments. */
function chatUserTurn(ctx, turn, state) {
  const files = turn.attachments || [];
  return mgEl("div", { class: "mg-msg mg-msg--user", "data-state": state },
    mgEl("div", { class: "mg-msg__who", text: "You" }),
    mgEl("div", { class: "mg-msg__bubble" }, mgEl("div", { class: "mg-msg__text", text: turn.text }),
      files.length
        ? mgEl("div", { class: "mg-row mg-msg__files" }, files.map((a) => chatAttachmentChip(a, ctx.previews)))
        : null));
}

/** A reply: who wrote it and its state, thinking, the Markdown, tool calls, error and usage. */
function chatTurn(ctx, turn, index, live) {
  const state = live ? "streaming" : turn.state || "complete";
  if (turn.role === "user") return chatUserTurn(ctx, turn, state);
  const thinking = live ? ctx.model.get("live_thinking") : turn.thinking;
  const body = mgEl("div", { class: "mg-msg__body mg-md" });
  chatMarkdown(body, live ? ctx.model.get("live_text") : turn.text);
  const stopped = state === "stopped" ? "Stopped: the partial answer is kept." : "";
  const notes = [stopped, chatUsage(turn.usage)].filter(Boolean);
  const chipKind = state === "error" ? "error" : state === "stopped" ? "warn" : "accent";
  const who = mgEl("span", { text: turn.title || turn.model || "Assistant", title: turn.model });
  const busy = live ? "true" : "false";
  return mgEl("article", { class: "mg-msg mg-msg--assistant", "data-state": state, "aria-busy": busy },
    mgEl("div", { class: "mg-msg__who" }, who,
      CHAT_STATE_TEXT[state] ? mgChip(CHAT_STATE_TEXT[state], chipKind) : null),
    thinking ? chatThinking(thinking, live) : mgEl("span", { hidden: true, class: "mg-thinking-slot" }),
    body,
    chatToolCards(ctx, turn, index),
    turn.error ? mgEl("p", { class: "mg-msg__error", text: turn.error }) : null,
    notes.length ? mgEl("p", { class: "mg-hint mg-msg__foot", text: notes.join(" · ") }) : null);
}

/** An empty conversation: whom you talk to, and three things to try. */
function chatEmpty(ctx) {
  const title = ctx.model.get("spec").title || "";
  const tries = [
    "Explain how a rainbow forms, with a short list",
    "Write a haiku about notebooks",
    "What can you do with images?",
  ];
  return mgEl("div", { class: "mg-chat__empty" },
    mgEl("p", { class: "mg-chat__empty-title", text: title ? `Chat with ${title}` : "Start a conversation" }),
    mgEl("p", { class: "mg-hint", text: "Replies stream in as they are written; Stop keeps what has arrived." }),
    mgEl("div", { class: "mg-row" }, tries.map((s) => mgButton({ label: s, onClick: () => ctx.suggest(s) }))));
}

/**
 * The transcript (role=log): every turn, redrawn when `turns` changes; while a reply streams
 * only its text and thinking are redrawn (`live_seq`). It follows the newest text unless the
 * reader scrolled up.
 */
function chatTranscript(ctx) {
  const log = mgEl("div", { class: "mg-chat__log", role: "log", "aria-label": "Conversation", tabindex: "0" });
  const model = ctx.model;
  let shownSeq = -1;
  let liveNode = null;
  const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  function drawTurns() {
    const stick = atBottom();
    const turns = model.get("turns") || [];
    const live = model.get("live_index");
    if (turns.length) mgReplace(log, turns.map((turn, i) => chatTurn(ctx, turn, i, i === live)));
    else mgReplace(log, chatEmpty(ctx));
    liveNode = live >= 0 ? log.children[live] : null;
    shownSeq = model.get("live_seq");
    log.closest(".mg-panel")?.setAttribute("data-turns", String(turns.length));
    if (stick || live >= 0) log.scrollTop = log.scrollHeight;
  }
  function drawLive() {
    const seq = model.get("live_seq");
    if (seq <= shownSeq || model.get("live_index") < 0) return;
    if (!liveNode?.isConnected) return drawTurns();
    const stick = atBottom();
    chatMarkdown(liveNode.querySelector(".mg-msg__body"), model.get("live_text"));
    const thinking = model.get("live_thinking");
    const slot = liveNode.querySelector(".mg-thinking, .mg-thinking-slot");
    if (thinking && slot) {
      const next = chatThinking(thinking, true);
      next.open = slot.open === true; // keep it as the user left it
      slot.replaceWith(next);
    }
    shownSeq = seq;
    if (stick) log.scrollTop = log.scrollHeight;
  }
  return {
    el: log,
    parts: [
      { traits: ["turns", "live_index"], update: drawTurns },
      { traits: ["live_seq"], update: drawLive },
      {
        traits: ["can_stop"],
        update() {
          if (!model.get("can_stop")) return;
          for (const b of log.querySelectorAll("[data-mg-action=tool-results]")) b.disabled = true;
        },
      },
    ],
  };
}
