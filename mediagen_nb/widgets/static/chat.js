// Chat panel front end (hand-written ES module; `_frontend.esm` puts the kit, chat_markdown.js
// and chat_transcript.js before it). Python owns the state: these components render the traits
// and send back `values` / `touched` and `{"action": ...}` messages.
//
// Traits: values, touched, spec, problems, hint, can_send, can_stop, can_retry, attachments,
// code, notice, mode, show_mode, turns, live_index, live_text, live_thinking, live_seq.
// DOM hooks (browser tests): textarea[name=message], [data-mg-action=send|stop|retry|clear],
// .mg-msg--user / .mg-msg--assistant, details.mg-thinking, .mg-toolcall.

/** What the components share: the model, writing values, actions, attachment previews. */
function chatContext(model) {
  const touched = new Set(model.get("touched") || []);
  return {
    model,
    previews: new Map(), // "name:size" -> object URL of a file attached in this view
    drafts: new Map(), // tool call id -> typed result (survives redraws)
    setValues(changes) {
      for (const key of Object.keys(changes)) if (key !== "message") touched.add(key);
      model.set("values", { ...model.get("values"), ...changes });
      model.set("touched", [...touched].sort());
      model.save_changes();
    },
    act: (action, extra) => model.send({ action, ...(extra || {}) }),
    field: (name) => model.get("spec").fields?.[name] || { label: name, help: "", api: "" },
    suggest: () => {}, // set by the composer: put a suggestion into the message box
  };
}

/** The mode (when the panel stands alone) and New conversation. */
function chatTop(ctx) {
  const mode = mgEl("span", { class: "mg-hint mg-chat__mode" });
  const clear = mgButton({ label: "New conversation", action: "clear", onClick: () => ctx.act("clear") });
  return {
    el: mgEl("div", { class: "mg-row mg-chat__top" }, mode, mgEl("span", { class: "mg-spacer" }), clear),
    traits: ["mode", "show_mode", "turns"],
    update(model) {
      mode.textContent = model.get("show_mode") ? model.get("mode") || "" : "";
      mode.hidden = !mode.textContent;
      clear.disabled = !(model.get("turns") || []).length;
    },
  };
}

/** Model (grouped by family) and protocol. */
function chatHead(ctx) {
  const select = mgEl("select", { class: "mg-input mg-select", name: "model", id: mgId("mg-chat-model") });
  select.addEventListener("change", () => ctx.setValues({ model: select.value }));
  const protocolSlot = mgEl("div", { class: "mg-chat__protocol" });
  const modelRow = mgField({ id: select.id, label: "Model", apiName: "model", control: select });
  const protocolRow = mgField({ label: "Protocol", control: protocolSlot });
  return {
    el: mgEl("div", { class: "mg-form mg-chat__head" }, modelRow, protocolRow),
    traits: ["values", "spec"],
    update(model) {
      const v = model.get("values") || {};
      const spec = model.get("spec") || {};
      // rebuilt only when the offer changes (a classroom gateway allows fewer models)
      const groups = spec.models || [];
      const offer = groups.map((g) => g.options.map((o) => o.value).join(",")).join(";");
      if (select.mgOffer !== offer) {
        select.mgOffer = offer;
        select.replaceChildren(...groups.map((group) => mgEl("optgroup", { label: group.label },
          group.options.map((o) => mgEl("option", { value: o.value, title: o.title, text: o.label })))));
      }
      if (select.value !== v.model) select.value = v.model;
      const protocols = spec.protocols || [];
      mgReplace(protocolSlot, mgSegmented({
        name: "protocol",
        label: "Protocol",
        value: v.protocol,
        options: protocols.filter((p) => !p.disabled).map((p) => ({ value: p.value, label: p.label, title: p.title })),
        onChange: (value) => ctx.setValues({ protocol: value }),
      }));
      protocolRow.mgSetHelp(protocols.some((p) => p.disabled) ? "This model is served on Chat Completions only." : "");
      modelRow.mgSetHelp(spec.capability || "");
    },
  };
}

/** The settings' controls: text boxes, numbers and sliders that write `values` on change. */
function chatSettingControls(ctx) {
  const id = (name) => mgId(`mg-chat-${name}`);
  const hint = (name) => ctx.field(name).placeholder || "";
  const text = (name, attrs) => {
    const node = mgEl("textarea", { class: "mg-input", name, id: id(name), ...attrs });
    node.addEventListener("change", () => ctx.setValues({ [name]: node.value }));
    chatKeys(node, () => {});
    return node;
  };
  const number = (name, attrs) => {
    const cls = "mg-input mg-chat__number";
    const node = mgEl("input", { type: "number", class: cls, name, id: id(name), min: "0", ...attrs });
    node.addEventListener("change", () => ctx.setValues({ [name]: node.value === "" ? 0 : Number(node.value) }));
    node.addEventListener("keydown", (e) => e.stopPropagation());
    return node;
  };
  const slider = (name, max) => {
    const range = { type: "range", name, id: id(name), min: "0", max: String(max), step: "0.05" };
    const input = mgEl("input", { ...range, class: "mg-chat__range" });
    const out = mgEl("output", { class: "mg-chat__range-value", for: input.id });
    input.addEventListener("input", () => {
      out.textContent = Number(input.value).toFixed(2);
    });
    input.addEventListener("change", () => ctx.setValues({ [name]: Number(input.value) }));
    input.addEventListener("keydown", (e) => e.stopPropagation());
    return { input, out, wrap: mgEl("div", { class: "mg-row mg-chat__slider" }, input, out) };
  };
  const c = {
    system: text("system", { rows: 2, placeholder: hint("system") }),
    sampling: mgEl("div"),
    temperature: slider("temperature", 2),
    top_p: slider("top_p", 1),
    max_tokens: number("max_tokens", { placeholder: hint("max_tokens"), step: "1", min: "1" }),
    stop: text("stop", { rows: 2, placeholder: hint("stop") }),
    tools: text("tools", {
      rows: 6,
      spellcheck: "false",
      class: "mg-input mg-chat__mono",
      placeholder: hint("tools"),
    }),
    tool_choice: mgEl("select", { class: "mg-input mg-select", name: "tool_choice", id: id("tool-choice") }),
    thinking_budget: number("thinking_budget", { step: "256", placeholder: hint("thinking_budget") }),
  };
  c.tool_choice.addEventListener("change", () => ctx.setValues({ tool_choice: c.tool_choice.value }));
  return c;
}

/** One row per setting (the label, help and API name come from the spec). */
function chatSettingRows(ctx, c) {
  const row = (name, control, body) => {
    const info = ctx.field(name);
    return mgField({ id: control.id, label: info.label, help: info.help, apiName: info.api, control: body || control });
  };
  const example = mgButton({
    label: "Insert example",
    action: "tools-example",
    onClick: () => {
      c.tools.value = ctx.model.get("spec").tools_example || "";
      ctx.setValues({ tools: c.tools.value });
    },
  });
  const tools = mgEl("div", { class: "mg-chat__tools" }, c.tools, mgEl("div", { class: "mg-row" }, example));
  return {
    system: row("system", c.system),
    sampling: row("sampling", c.sampling),
    temperature: row("temperature", c.temperature.input, c.temperature.wrap),
    top_p: row("top_p", c.top_p.input, c.top_p.wrap),
    max_tokens: row("max_tokens", c.max_tokens),
    stop: row("stop", c.stop),
    tools: row("tools", c.tools, tools),
    tool_choice: row("tool_choice", c.tool_choice),
    thinking_budget: row("thinking_budget", c.thinking_budget),
  };
}

/** Copy the values into the controls the user is not typing in. */
function chatSyncSettings(c, v, spec) {
  mgReplace(c.sampling, mgSegmented({
    name: "sampling",
    label: "Sampling",
    value: v.sampling,
    options: spec.sampling || [],
    onChange: (value) => c.setSampling(value),
  }));
  c.temperature.input.max = String(spec.temperature_max || 2);
  for (const name of ["temperature", "top_p"]) {
    if (!chatFocused(c[name].input)) c[name].input.value = String(v[name]);
    c[name].out.textContent = Number(v[name]).toFixed(2);
  }
  const put = (node, value) => {
    if (!chatFocused(node) && node.value !== value) node.value = value;
  };
  put(c.system, v.system || "");
  put(c.stop, v.stop || "");
  put(c.tools, v.tools || "");
  put(c.max_tokens, v.max_tokens ? String(v.max_tokens) : "");
  if (spec.max_tokens_max) c.max_tokens.max = String(spec.max_tokens_max);
  else c.max_tokens.removeAttribute("max");
  put(c.thinking_budget, v.thinking_budget ? String(v.thinking_budget) : "");
  if (c.tool_choice.options.length === 0) {
    const choices = spec.tool_choices || [];
    mgAppend(c.tool_choice, choices.map((choice) => mgEl("option", { value: choice.value, text: choice.label })));
  }
  c.tool_choice.value = v.tool_choice || "auto";
}

/** "Settings": system prompt, sampling, limits, tools, thinking; opens itself on a problem. */
function chatSettings(ctx) {
  const c = chatSettingControls(ctx);
  c.setSampling = (value) => ctx.setValues({ sampling: value });
  const rows = chatSettingRows(ctx, c);
  const summary = mgEl("summary", { class: "mg-chat__summary" }, "Settings");
  const form = mgEl("div", { class: "mg-form" }, Object.values(rows));
  const el = mgEl("details", { class: "mg-chat__settings" }, summary, form);
  return {
    el,
    traits: ["values", "spec", "problems"],
    update(model) {
      const v = model.get("values") || {};
      const spec = model.get("spec") || {};
      chatSyncSettings(c, v, spec);
      rows.temperature.hidden = v.sampling !== "temperature";
      rows.top_p.hidden = v.sampling !== "top_p";
      rows.stop.hidden = !spec.stop;
      rows.thinking_budget.hidden = !spec.thinking;
      rows.tool_choice.hidden = !(v.tools || "").trim();
      const problems = model.get("problems") || {};
      for (const [name, row] of Object.entries(rows)) row.mgSetError(problems[name] || "");
      const count = Object.keys(problems).length;
      summary.textContent = count ? `Settings · ${count} to fix` : "Settings";
      if (count) el.open = true;
    },
  };
}

/** Read chosen files (checked against the spec) and send each to the kernel as a data URL. */
function chatReadFiles(ctx, input, showError) {
  const spec = ctx.model.get("spec");
  for (const file of input.files || []) {
    if (!(spec.file_types || []).includes(file.type)) {
      showError(`Attachments: ${file.name} is not a PNG, JPEG, GIF or WebP image`);
      continue;
    }
    if (file.size > spec.max_file_bytes) {
      showError(`Attachments: ${file.name} is ${chatBytes(file.size)}; at most ${chatBytes(spec.max_file_bytes)}`);
      continue;
    }
    const reader = new FileReader();
    reader.onload = () => {
      ctx.previews.set(`${file.name}:${file.size}`, URL.createObjectURL(file));
      ctx.act("attach-file", { name: file.name, type: file.type, data: reader.result });
    };
    reader.readAsDataURL(file);
  }
  input.value = "";
}

/** Attach an image file, or add an image or video URL; the chips of what is attached. */
function chatAttachments(ctx) {
  const error = mgEl("p", { class: "mg-error", "aria-live": "polite", hidden: true });
  const showError = (text) => {
    error.textContent = text;
    error.hidden = !text;
  };
  const file = mgEl("input", { type: "file", name: "chat-file", hidden: true }); // opened by its button
  file.addEventListener("change", () => chatReadFiles(ctx, file, showError));
  const fileBtn = mgButton({ label: "Attach image…", action: "attach-file", onClick: () => file.click() });
  const url = mgEl("input", {
    type: "url",
    class: "mg-input mg-chat__url",
    name: "attachment-url",
    placeholder: "https://… image URL",
    "aria-label": "Image or video URL",
  });
  const kindAttrs = { class: "mg-input mg-select mg-chat__kind", name: "attachment-kind" };
  kindAttrs["aria-label"] = "Kind of media";
  const kind = mgEl("select", kindAttrs,
    mgEl("option", { value: "image", text: "Image" }), mgEl("option", { value: "video", text: "Video" }));
  const addUrl = () => {
    if (!url.value.trim()) return;
    ctx.act("attach-url", { url: url.value.trim(), kind: kind.value });
    url.value = "";
  };
  url.addEventListener("keydown", (e) => {
    e.stopPropagation();
    if (e.key !== "Enter") return;
    e.preventDefault();
    addUrl();
  });
  const row = mgEl("div", { class: "mg-row mg-chat__attach" }, fileBtn, file, url, kind,
    mgButton({ label: "Add URL", action: "attach-url", onClick: addUrl }));
  const textOnly = mgEl("p", { class: "mg-hint", text: "This model takes text only here." });
  const chips = mgEl("div", { class: "mg-row mg-chat__chips", "aria-label": "Attachments" });
  const chip = (a) => {
    const node = chatAttachmentChip(a, ctx.previews);
    node.append(mgEl("button", {
      type: "button",
      class: "mg-chip__remove",
      "aria-label": `Remove ${a.label}`,
      text: "×",
      onClick: () => ctx.act("remove-attachment", { key: a.key }),
    }));
    return node;
  };
  return {
    chips,
    el: [row, textOnly, error],
    traits: ["spec", "problems", "attachments"],
    update(model) {
      const spec = model.get("spec") || {};
      const kinds = spec.kinds || [];
      row.hidden = !kinds.length;
      textOnly.hidden = kinds.length > 0;
      fileBtn.hidden = !kinds.includes("image");
      kind.hidden = !kinds.includes("video");
      url.placeholder = kinds.includes("video") ? "https://… image or video URL" : "https://… image URL";
      file.accept = (spec.file_types || []).join(",");
      showError(model.get("problems")?.attachments || "");
      const attached = model.get("attachments") || [];
      mgReplace(chips, attached.map(chip));
      chips.hidden = !attached.length;
    },
  };
}

/** The message box (Ctrl+Enter sends), attachments, and Retry / Stop / Send. */
function chatComposer(ctx) {
  const model = ctx.model;
  const box = { class: "mg-input mg-chat__message", name: "message", rows: 3, id: mgId("mg-chat-message") };
  const message = mgEl("textarea", box);
  let timer = null;
  const push = () => {
    clearTimeout(timer);
    timer = null;
    if (message.value !== (model.get("values").message || "")) ctx.setValues({ message: message.value });
  };
  message.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(push, 150);
  });
  // The draft goes with the action: the kernel may not have seen the last keystrokes yet.
  const send = () => {
    clearTimeout(timer);
    timer = null;
    if (!message.value.trim() || model.get("can_stop")) return;
    ctx.act("send", { message: message.value });
    message.value = ""; // a refused draft comes back with the kernel's `values`
  };
  chatKeys(message, send);
  ctx.suggest = (text) => {
    message.value = text;
    ctx.setValues({ message: text });
    message.focus();
  };
  const sendBtn = mgButton({ label: "Send", kind: "primary", action: "send", onClick: send });
  sendBtn.title = "Send (Ctrl+Enter)";
  const stopBtn = mgButton({ label: "Stop", action: "stop", onClick: () => ctx.act("stop") });
  const retry = () => ctx.act("retry");
  const retryBtn = mgButton({ label: "Retry", action: "retry", title: "Send the last request again", onClick: retry });
  const hint = mgEl("p", { class: "mg-hint mg-chat__hint", "aria-live": "polite" });
  const attach = chatAttachments(ctx);
  const el = mgEl("div", { class: "mg-chat__composer" }, attach.chips,
    mgEl("label", { class: "mg-sr-only", for: message.id, text: "Message" }), message, attach.el,
    mgEl("div", { class: "mg-row mg-chat__actions" },
      hint, mgEl("span", { class: "mg-spacer" }), retryBtn, stopBtn, sendBtn));
  const controls = {
    traits: ["values", "spec", "can_send", "can_stop", "can_retry", "hint"],
    update() {
      const draft = model.get("values").message || "";
      if (timer === null && message.value !== draft) message.value = draft;
      const title = model.get("spec").title || "";
      message.placeholder = title ? `Message ${title}` : "Message";
      sendBtn.disabled = !model.get("can_send");
      stopBtn.disabled = !model.get("can_stop");
      retryBtn.disabled = !model.get("can_retry");
      hint.textContent = model.get("hint") || "";
    },
    dispose() {
      clearTimeout(timer);
      for (const url of ctx.previews.values()) URL.revokeObjectURL(url);
    },
  };
  return { el, parts: [controls, attach] };
}

/** Compare: each model's answer side by side, streaming at once (one Stop stops them all). */
function chatCompareAnswers(model) {
  const list = mgEl("div", { class: "mg-chat__compare", role: "list", "aria-label": "Compared answers" });
  const code = mgCopy(() => model.get("compare_code"), "Copy as code");
  const el = mgEl("section", { class: "mg-chat__compare-row", "aria-label": "Compare" }, list, code);
  const cards = [];
  return {
    el,
    traits: ["compare", "compare_answers", "compare_code"],
    update() {
      const answers = model.get("compare_answers");
      el.hidden = !model.get("compare") || !answers.length;
      while (cards.length > answers.length) cards.pop().el.remove();
      answers.forEach((a, i) => {
        if (!cards[i]) {
          const title = mgEl("h4", { class: "mg-chat__compare-title" });
          const state = mgEl("span", { class: "mg-muted" });
          const text = mgEl("div", { class: "mg-chat__compare-text" });
          const error = mgEl("p", { class: "mg-error" });
          const card = mgEl("article", { class: "mg-chat__compare-card", role: "listitem" },
            mgEl("header", { class: "mg-row" }, title, state), text, error);
          cards[i] = { el: card, title, state, text, error, shown: null };
          list.append(card);
        }
        const c = cards[i];
        c.title.textContent = a.title;
        c.el.dataset.state = a.state;
        c.el.setAttribute("aria-label", `${a.title}: ${CHAT_STATE_TEXT[a.state] || "Done"}`);
        c.state.textContent = CHAT_STATE_TEXT[a.state] || "Done";
        c.error.textContent = a.error;
        c.error.hidden = !a.error;
        if (c.shown !== a.text) {
          c.shown = a.text;
          chatMarkdown(c.text, a.text);
        }
      });
      code.hidden = !model.get("compare_code");
    },
  };
}

function render({ model, el }) {
  const ctx = chatContext(model);
  return mgCompose(model, el, "chat", [
    chatTop(ctx),
    chatHead(ctx),
    mgCmpSwitch(model),
    chatSettings(ctx),
    chatTranscript(ctx),
    chatCompareAnswers(model),
    chatComposer(ctx),
    mgCodeBox("mg-chat__code"),
    mgNoticePart(model),
  ]);
}

export default { render };
