// Chat panel front end (hand-written ES module; `_frontend.esm` puts kit.js and
// chat_markdown.js before it). Python owns the state; this file renders the traits and sends
// back `values` / `touched` and `{"action": ...}` messages.
//
// Traits: values, touched, spec, problems, hint, can_send, can_stop, can_retry, attachments,
// code, notice, mode, turns, live_index, live_text, live_thinking, live_seq.
// DOM hooks (browser tests): textarea[name=message], [data-mg-action=send|stop|retry|clear],
// .mg-msg--user / .mg-msg--assistant, details.mg-thinking, .mg-toolcall.

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

function render({ model, el }) {
  const get = (name) => model.get(name);
  const touched = new Set(get("touched") || []);
  const previews = new Map(); // "name:size" -> object URL of a file attached in this view
  const drafts = new Map(); // tool call id -> typed result (survives redraws)

  const setValues = (changes) => {
    for (const key of Object.keys(changes)) if (key !== "message") touched.add(key);
    model.set("values", { ...get("values"), ...changes });
    model.set("touched", [...touched].sort());
    model.save_changes();
  };
  const act = (action, extra) => model.send({ action, ...(extra || {}) });
  const fieldText = (name) => get("spec").fields?.[name] || { label: name, help: "", api: "" };

  // --- header: model and protocol ------------------------------------------------------
  const modelSelect = mgEl("select", { class: "mg-input mg-select", name: "model", id: mgId("mg-chat-model") });
  modelSelect.addEventListener("change", () => setValues({ model: modelSelect.value }));
  const protocolSlot = mgEl("div", { class: "mg-chat__protocol" });
  const newChat = mgButton({ label: "New conversation", kind: "ghost", action: "clear", onClick: () => act("clear") });
  const modelRow = mgField({ id: modelSelect.id, label: "Model", apiName: "model", control: modelSelect });
  const protocolRow = mgField({ label: "Protocol", control: protocolSlot });
  const header = mgEl("div", { class: "mg-form mg-chat__head" }, modelRow, protocolRow);

  // --- settings ----------------------------------------------------------------------------
  const rows = {};
  const controls = {};
  const field = (name, control, extra) => {
    const info = fieldText(name);
    controls[name] = control;
    rows[name] = mgField({ id: control.id, label: info.label, help: info.help, apiName: info.api, control: extra || control });
    return rows[name];
  };
  const textarea = (name, attrs) => {
    const node = mgEl("textarea", { class: "mg-input", name, id: mgId(`mg-chat-${name}`), ...attrs });
    node.addEventListener("change", () => setValues({ [name]: node.value }));
    chatKeys(node, () => {});
    return node;
  };
  const number = (name, attrs) => {
    const node = mgEl("input", { type: "number", class: "mg-input mg-chat__number", name, id: mgId(`mg-chat-${name}`), min: "0", ...attrs });
    node.addEventListener("change", () => setValues({ [name]: node.value === "" ? 0 : Number(node.value) }));
    node.addEventListener("keydown", (e) => e.stopPropagation());
    return node;
  };
  const slider = (name, max) => {
    const input = mgEl("input", { type: "range", name, id: mgId(`mg-chat-${name}`), min: "0", max: String(max), step: "0.05", class: "mg-chat__range" });
    const out = mgEl("output", { class: "mg-chat__range-value", for: input.id });
    input.addEventListener("input", () => { out.textContent = Number(input.value).toFixed(2); });
    input.addEventListener("change", () => setValues({ [name]: Number(input.value) }));
    input.addEventListener("keydown", (e) => e.stopPropagation());
    return { input, out, wrap: mgEl("div", { class: "mg-row mg-chat__slider" }, input, out) };
  };
  const system = textarea("system", { rows: 2, placeholder: "e.g. You are a concise tutor." });
  const samplingSlot = mgEl("div");
  const temperature = slider("temperature", 2);
  const topP = slider("top_p", 1);
  const maxTokens = number("max_tokens", { placeholder: "default", step: "1" });
  const stop = textarea("stop", { rows: 2, placeholder: "one per line" });
  const tools = textarea("tools", { rows: 6, spellcheck: "false", class: "mg-input mg-chat__mono", placeholder: "[{\"name\": \"get_weather\", \"parameters\": {…}}]" });
  const example = mgButton({ label: "Insert example", kind: "ghost", action: "tools-example", onClick: () => { tools.value = get("spec").tools_example || ""; setValues({ tools: tools.value }); } });
  const toolChoice = mgEl("select", { class: "mg-input mg-select", name: "tool_choice", id: mgId("mg-chat-tool-choice") });
  toolChoice.addEventListener("change", () => setValues({ tool_choice: toolChoice.value }));
  const budget = number("thinking_budget", { step: "256", placeholder: "0 (off)" });
  const settingsForm = mgEl("div", { class: "mg-form" },
    field("system", system),
    field("sampling", samplingSlot),
    field("temperature", temperature.input, temperature.wrap),
    field("top_p", topP.input, topP.wrap),
    field("max_tokens", maxTokens),
    field("stop", stop),
    field("tools", tools, mgEl("div", { class: "mg-chat__tools" }, tools, mgEl("div", { class: "mg-row" }, example))),
    field("tool_choice", toolChoice),
    field("thinking_budget", budget),
  );
  const settingsSummary = mgEl("summary", { class: "mg-chat__summary" }, "Settings");
  const settings = mgEl("details", { class: "mg-chat__settings" }, settingsSummary, settingsForm);

  // --- transcript --------------------------------------------------------------------------
  const log = mgEl("div", { class: "mg-chat__log", role: "log", "aria-label": "Conversation", tabindex: "0" });
  let shownSeq = -1;
  let liveNode = null;

  // --- composer ----------------------------------------------------------------------------
  const message = mgEl("textarea", { class: "mg-input mg-chat__message", name: "message", rows: 3, id: mgId("mg-chat-message") });
  let messageTimer = null;
  const pushMessage = () => {
    clearTimeout(messageTimer);
    messageTimer = null;
    if (message.value !== (get("values").message || "")) setValues({ message: message.value });
  };
  message.addEventListener("input", () => {
    clearTimeout(messageTimer);
    messageTimer = setTimeout(pushMessage, 150);
  });
  // The draft goes with the action: the kernel may not have seen the last keystrokes yet.
  const doSend = () => {
    clearTimeout(messageTimer);
    messageTimer = null;
    if (!message.value.trim() || get("can_stop")) return;
    act("send", { message: message.value });
    message.value = ""; // a refused draft comes back with the kernel's `values`
  };
  chatKeys(message, doSend);
  const messageLabel = mgEl("label", { class: "mg-sr-only", for: message.id, text: "Message" });
  const sendBtn = mgButton({ label: "Send", kind: "primary", action: "send", title: "Send (Ctrl+Enter)", onClick: doSend });
  const stopBtn = mgButton({ label: "Stop", kind: "secondary", action: "stop", onClick: () => act("stop") });
  const retryBtn = mgButton({ label: "Retry", kind: "ghost", action: "retry", title: "Send the last request again", onClick: () => act("retry") });
  const hint = mgEl("p", { class: "mg-hint mg-chat__hint", "aria-live": "polite" });
  const chips = mgEl("div", { class: "mg-row mg-chat__chips", "aria-label": "Attachments" });
  const attachError = mgEl("p", { class: "mg-error", "aria-live": "polite", hidden: true });
  const fileInput = mgEl("input", { type: "file", name: "chat-file", hidden: true }); // opened by its button
  const fileBtn = mgButton({ label: "Attach image…", kind: "ghost", action: "attach-file", onClick: () => fileInput.click() });
  const urlInput = mgEl("input", { type: "url", class: "mg-input mg-chat__url", name: "attachment-url", placeholder: "https://… image URL", "aria-label": "Image or video URL" });
  const kindSelect = mgEl("select", { class: "mg-input mg-select mg-chat__kind", name: "attachment-kind", "aria-label": "Kind of media" },
    mgEl("option", { value: "image", text: "Image" }), mgEl("option", { value: "video", text: "Video" }));
  const addUrl = () => {
    if (!urlInput.value.trim()) return;
    act("attach-url", { url: urlInput.value.trim(), kind: kindSelect.value });
    urlInput.value = "";
  };
  urlInput.addEventListener("keydown", (e) => {
    e.stopPropagation();
    if (e.key === "Enter") { e.preventDefault(); addUrl(); }
  });
  const urlBtn = mgButton({ label: "Add URL", kind: "ghost", action: "attach-url", onClick: addUrl });
  const attachRow = mgEl("div", { class: "mg-row mg-chat__attach" }, fileBtn, fileInput, urlInput, kindSelect, urlBtn);
  const textOnly = mgEl("p", { class: "mg-hint", text: "This model takes text only here." });
  fileInput.addEventListener("change", () => {
    const spec = get("spec");
    for (const file of fileInput.files || []) {
      if (!(spec.file_types || []).includes(file.type)) {
        showAttachError(`Attachments: ${file.name} is not a PNG, JPEG, GIF or WebP image`);
        continue;
      }
      if (file.size > spec.max_file_bytes) {
        showAttachError(`Attachments: ${file.name} is ${chatBytes(file.size)}; at most ${chatBytes(spec.max_file_bytes)}`);
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        previews.set(`${file.name}:${file.size}`, URL.createObjectURL(file));
        act("attach-file", { name: file.name, type: file.type, data: reader.result });
      };
      reader.readAsDataURL(file);
    }
    fileInput.value = "";
  });
  function showAttachError(text) {
    attachError.textContent = text;
    attachError.hidden = !text;
  }
  const actions = mgEl("div", { class: "mg-row mg-chat__actions" }, hint, mgEl("span", { class: "mg-spacer" }), retryBtn, stopBtn, sendBtn);
  const composer = mgEl("div", { class: "mg-chat__composer" }, chips, messageLabel, message, attachRow, textOnly, attachError, actions);

  // --- copy as code, notice, mode ----------------------------------------------------------
  const codePre = mgEl("pre", { tabindex: "0", "aria-label": "Code of the next request" });
  const codeBox = mgEl("details", { class: "mg-chat__code" },
    mgEl("summary", { class: "mg-chat__summary" }, "Copy as code"),
    mgEl("div", { class: "mg-code" }, codePre, mgCopy(() => get("code"), "Copy")));
  const mode = mgEl("span", { class: "mg-hint mg-chat__mode" });
  const top = mgEl("div", { class: "mg-row mg-chat__top" }, mode, mgEl("span", { class: "mg-spacer" }), newChat);
  const root = mgPanel(el, "chat", top, header, settings, log, composer, codeBox, mgNotice(model));

  // --- turns -------------------------------------------------------------------------------
  function thinkingNode(text, live) {
    const words = text ? `${text.trim().split(/\s+/).length} words` : "";
    return mgEl("details", { class: "mg-thinking" },
      mgEl("summary", {}, live ? "Thinking…" : "Thinking", words ? mgEl("span", { class: "mg-hint", text: ` · ${words}` }) : null),
      mgEl("div", { class: "mg-thinking__body", text, tabindex: "0" }));
  }

  function toolCards(turn, index) {
    const calls = turn.tool_calls || [];
    if (!calls.length) return null;
    const boxes = [];
    const cards = calls.map((call) => {
      let resultPart;
      if (call.result !== null && call.result !== undefined) {
        resultPart = mgEl("div", { class: "mg-toolcall__result" }, mgEl("div", { class: "mg-toolcall__label", text: "Result" }), mgEl("pre", { text: call.result, tabindex: "0", "aria-label": `Result of ${call.name}` }));
      } else if (turn.waiting) {
        const id = mgId("mg-tool-result");
        const box = mgEl("textarea", { class: "mg-input mg-chat__mono", name: "tool-result", id, rows: 2, placeholder: "e.g. {\"temp_c\": 18}", "data-call": call.id });
        box.value = drafts.get(call.id) || "";
        box.addEventListener("input", () => { drafts.set(call.id, box.value); sync(); });
        chatKeys(box, () => submit());
        boxes.push(box);
        resultPart = mgEl("div", { class: "mg-toolcall__result" }, mgEl("label", { class: "mg-toolcall__label", for: id, text: `Result of ${call.name}` }), box);
      }
      return mgEl("div", { class: "mg-toolcall", role: "group", "data-call": call.id, "aria-label": `Tool call ${call.name}` },
        mgEl("header", { class: "mg-toolcall__head" }, mgChip("Tool call", "accent"), mgEl("code", { class: "mg-toolcall__name", text: call.name })),
        mgEl("pre", { class: "mg-toolcall__args", text: call.arguments, tabindex: "0", "aria-label": `Arguments of ${call.name}` }),
        resultPart);
    });
    if (!boxes.length) return cards;
    const submitBtn = mgButton({ label: calls.length > 1 ? "Send results" : "Send result", kind: "primary", action: "tool-results", onClick: () => submit() });
    function sync() { submitBtn.disabled = !boxes.every((b) => b.value.trim()) || get("can_stop"); }
    function submit() {
      if (submitBtn.disabled) return;
      const results = {};
      for (const b of boxes) results[b.dataset.call] = b.value;
      act("tool-results", { turn: index, results });
    }
    sync();
    return [...cards, mgEl("div", { class: "mg-row mg-toolcall__submit" }, mgEl("span", { class: "mg-hint", text: "Type what the tool returned; the model continues." }), mgEl("span", { class: "mg-spacer" }), submitBtn)];
  }

  function turnNode(turn, index, live) {
    const state = live ? "streaming" : turn.state || "complete";
    const text = live ? get("live_text") : turn.text;
    const thinking = live ? get("live_thinking") : turn.thinking;
    if (turn.role === "user") {
      return mgEl("div", { class: "mg-msg mg-msg--user", "data-state": state },
        mgEl("div", { class: "mg-msg__who", text: "You" }),
        mgEl("div", { class: "mg-msg__bubble" }, mgEl("div", { class: "mg-msg__text", text }),
          (turn.attachments || []).length ? mgEl("div", { class: "mg-row mg-msg__files" }, turn.attachments.map((a) => attachmentChip(a))) : null));
    }
    const body = mgEl("div", { class: "mg-msg__body mg-md" });
    chatMarkdown(body, text);
    const notes = [];
    if (state === "stopped") notes.push("Stopped: the partial answer is kept.");
    const usage = chatUsage(turn.usage);
    if (usage) notes.push(usage);
    const node = mgEl("article", { class: "mg-msg mg-msg--assistant", "data-state": state, "aria-busy": live ? "true" : "false" },
      mgEl("div", { class: "mg-msg__who" }, mgEl("span", { text: turn.title || turn.model || "Assistant", title: turn.model }),
        CHAT_STATE_TEXT[state] ? mgChip(CHAT_STATE_TEXT[state], state === "error" ? "error" : state === "stopped" ? "warn" : "accent") : null),
      thinking ? thinkingNode(thinking, live) : mgEl("span", { hidden: true, class: "mg-thinking-slot" }),
      body,
      toolCards(turn, index),
      turn.error ? mgEl("p", { class: "mg-msg__error", text: turn.error }) : null,
      notes.length ? mgEl("p", { class: "mg-hint mg-msg__foot", text: notes.join(" · ") }) : null);
    return node;
  }

  function attachmentChip(a) {
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

  const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  function drawTurns() {
    const stick = atBottom();
    const turns = get("turns") || [];
    const live = get("live_index");
    if (!turns.length) {
      const title = get("spec").title || "";
      mgReplace(log, mgEl("div", { class: "mg-chat__empty" },
        mgEl("p", { class: "mg-chat__empty-title", text: title ? `Chat with ${title}` : "Start a conversation" }),
        mgEl("p", { class: "mg-hint", text: "Replies stream in as they are written; Stop keeps what has arrived." }),
        mgEl("div", { class: "mg-row" }, ["Explain how a rainbow forms, with a short list", "Write a haiku about notebooks", "What can you do with images?"].map((s) =>
          mgButton({ label: s, kind: "secondary", onClick: () => { message.value = s; setValues({ message: s }); message.focus(); } })))));
    } else {
      mgReplace(log, turns.map((turn, i) => turnNode(turn, i, i === live)));
    }
    liveNode = live >= 0 ? log.children[live] : null;
    shownSeq = get("live_seq");
    root.dataset.turns = String(turns.length);
    if (stick || live >= 0) log.scrollTop = log.scrollHeight;
  }

  function drawLive() {
    const seq = get("live_seq");
    const live = get("live_index");
    if (seq <= shownSeq || live < 0) return;
    if (!liveNode || !liveNode.isConnected) return drawTurns();
    const stick = atBottom();
    chatMarkdown(liveNode.querySelector(".mg-msg__body"), get("live_text"));
    const thinking = get("live_thinking");
    const slot = liveNode.querySelector(".mg-thinking, .mg-thinking-slot");
    if (thinking && slot) {
      const next = thinkingNode(thinking, true);
      next.open = slot.open === true; // keep it as the user left it
      slot.replaceWith(next);
    }
    shownSeq = seq;
    if (stick) log.scrollTop = log.scrollHeight;
  }

  // --- form sync -----------------------------------------------------------------------------
  function drawForm() {
    const v = get("values") || {};
    const spec = get("spec") || {};
    if (modelSelect.options.length === 0) {
      for (const group of spec.models || []) {
        modelSelect.append(mgEl("optgroup", { label: group.label },
          group.options.map((o) => mgEl("option", { value: o.value, title: o.title, text: o.label }))));
      }
    }
    if (modelSelect.value !== v.model) modelSelect.value = v.model;
    mgReplace(protocolSlot, mgSegmented({
      name: "protocol", label: "Protocol", value: v.protocol,
      options: (spec.protocols || []).filter((p) => !p.disabled).map((p) => ({ value: p.value, label: p.label, title: p.title })),
      onChange: (value) => setValues({ protocol: value }),
    }));
    protocolRow.mgSetHelp((spec.protocols || []).some((p) => p.disabled) ? "This model is served on Chat Completions only." : "");
    modelRow.mgSetHelp(spec.capability || "");
    mgReplace(samplingSlot, mgSegmented({
      name: "sampling", label: "Sampling", value: v.sampling, options: spec.sampling || [],
      onChange: (value) => setValues({ sampling: value }),
    }));
    rows.temperature.hidden = v.sampling !== "temperature";
    rows.top_p.hidden = v.sampling !== "top_p";
    temperature.input.max = String(spec.temperature_max || 2);
    for (const [s, name] of [[temperature, "temperature"], [topP, "top_p"]]) {
      if (!chatFocused(s.input)) s.input.value = String(v[name]);
      s.out.textContent = Number(v[name]).toFixed(2);
    }
    rows.stop.hidden = !spec.stop;
    rows.thinking_budget.hidden = !spec.thinking;
    const sync = (node, value) => { if (!chatFocused(node) && node.value !== value) node.value = value; };
    sync(system, v.system || "");
    sync(stop, v.stop || "");
    sync(tools, v.tools || "");
    sync(maxTokens, v.max_tokens ? String(v.max_tokens) : "");
    sync(budget, v.thinking_budget ? String(v.thinking_budget) : "");
    if (toolChoice.options.length === 0) {
      for (const c of spec.tool_choices || []) toolChoice.append(mgEl("option", { value: c.value, text: c.label }));
    }
    toolChoice.value = v.tool_choice || "auto";
    rows.tool_choice.hidden = !(v.tools || "").trim();
    if (messageTimer === null && message.value !== (v.message || "")) message.value = v.message || "";
    const title = spec.title || "";
    message.placeholder = title ? `Message ${title}  (Ctrl+Enter sends)` : "Message (Ctrl+Enter sends)";
    const kinds = spec.kinds || [];
    attachRow.hidden = !kinds.length;
    textOnly.hidden = kinds.length > 0;
    fileBtn.hidden = !kinds.includes("image");
    kindSelect.hidden = !kinds.includes("video");
    urlInput.placeholder = kinds.includes("video") ? "https://… image or video URL" : "https://… image URL";
    fileInput.accept = (spec.file_types || []).join(",");
    const problems = get("problems") || {};
    for (const [name, row] of Object.entries(rows)) row.mgSetError(problems[name] || "");
    showAttachError(problems.attachments || "");
    const count = Object.keys(problems).length;
    settingsSummary.textContent = count ? `Settings · ${count} to fix` : "Settings";
    if (count) settings.open = true;
  }

  function drawState() {
    sendBtn.disabled = !get("can_send");
    stopBtn.disabled = !get("can_stop");
    retryBtn.disabled = !get("can_retry");
    newChat.disabled = !(get("turns") || []).length;
    hint.textContent = get("hint") || "";
    mode.textContent = get("mode") || "";
    codePre.textContent = get("code") || "";
    mgReplace(chips, (get("attachments") || []).map((a) => {
      const chip = attachmentChip(a);
      chip.append(mgEl("button", { type: "button", class: "mg-chip__remove", "aria-label": `Remove ${a.label}`, text: "×", onClick: () => act("remove-attachment", { key: a.key }) }));
      return chip;
    }));
    chips.hidden = !(get("attachments") || []).length;
    for (const b of log.querySelectorAll("[data-mg-action=tool-results]")) if (get("can_stop")) b.disabled = true;
  }

  const onForm = () => { drawForm(); drawState(); };
  const onTurns = () => { drawTurns(); drawState(); };
  const events = [
    ["change:values change:spec change:problems", onForm],
    ["change:turns change:live_index", onTurns],
    ["change:live_seq", drawLive],
    ["change:can_send change:can_stop change:can_retry change:hint change:code change:attachments change:mode", drawState],
  ];
  for (const [names, fn] of events) for (const name of names.split(" ")) model.on(name, fn);
  drawForm();
  drawTurns();
  drawState();
  root.dataset.mgReady = "1";
  return () => {
    for (const [names, fn] of events) for (const name of names.split(" ")) model.off(name, fn);
    for (const url of previews.values()) URL.revokeObjectURL(url);
  };
}

export default { render };
