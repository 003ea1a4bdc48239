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

/** A text box for a declared `text`, `lines` or `json` setting (Ctrl+Enter stays in it). */
function chatTextSetting(ctx, s, id) {
  const mono = s.control === "json";
  const attrs = { class: mono ? "mg-input mg-chat__mono" : "mg-input", name: s.key, id };
  if (mono) attrs.spellcheck = "false";
  const node = mgEl("textarea", { ...attrs, rows: mono ? 6 : 2, placeholder: ctx.field(s.key).placeholder || "" });
  node.addEventListener("change", () => ctx.setValues({ [s.key]: node.value }));
  chatKeys(node, () => {});
  const put = (value) => {
    if (!chatFocused(node) && node.value !== value) node.value = value;
  };
  if (!s.example) return { node, body: node, sync: (v) => put(v || "") };
  const example = mgButton({
    label: "Insert example",
    action: `${s.key}-example`,
    onClick: () => {
      node.value = s.example;
      ctx.setValues({ [s.key]: node.value });
    },
  });
  const body = mgEl("div", { class: `mg-chat__${s.key}` }, node, mgEl("div", { class: "mg-row" }, example));
  return { node, body, sync: (v) => put(v || "") };
}

/** A number box; empty is the value that sends nothing (`off`). */
function chatNumberSetting(ctx, s, id) {
  const attrs = { type: "number", class: "mg-input mg-chat__number", name: s.key, id };
  const node = mgEl("input", { ...attrs, step: String(s.step || 1), placeholder: ctx.field(s.key).placeholder || "" });
  node.addEventListener("change", () => ctx.setValues({ [s.key]: node.value === "" ? s.off : Number(node.value) }));
  node.addEventListener("keydown", (e) => e.stopPropagation());
  return {
    node,
    body: node,
    sync(v, c) {
      node.min = String(c.floor ?? c.minimum ?? "");
      if (c.maximum == null) node.removeAttribute("max");
      else node.max = String(c.maximum);
      const shown = v === c.off || v == null ? "" : String(v);
      if (!chatFocused(node) && node.value !== shown) node.value = shown;
    },
  };
}

/** A slider with its value beside it. */
function chatSliderSetting(ctx, s, id) {
  const range = { type: "range", name: s.key, id, step: String(s.step || 0.05) };
  const node = mgEl("input", { ...range, class: "mg-chat__range" });
  const out = mgEl("output", { class: "mg-chat__range-value", for: id });
  node.addEventListener("input", () => {
    out.textContent = Number(node.value).toFixed(2);
  });
  node.addEventListener("change", () => ctx.setValues({ [s.key]: Number(node.value) }));
  node.addEventListener("keydown", (e) => e.stopPropagation());
  return {
    node,
    body: mgEl("div", { class: "mg-row mg-chat__slider" }, node, out),
    sync(v, c) {
      node.min = String(c.minimum ?? 0);
      node.max = String(c.maximum ?? 1);
      if (!chatFocused(node)) node.value = String(v);
      out.textContent = Number(v).toFixed(2);
    },
  };
}

/** A segmented control (few options) or a select. */
function chatChoiceSetting(ctx, s, id) {
  if (s.control === "segmented") {
    const slot = mgEl("div");
    const sync = (v, c) => {
      const label = ctx.field(s.key).label;
      const onChange = (value) => ctx.setValues({ [s.key]: value });
      mgReplace(slot, mgSegmented({ name: s.key, label, value: v, options: c.options, onChange }));
    };
    return { node: slot, body: slot, sync };
  }
  const node = mgEl("select", { class: "mg-input mg-select", name: s.key, id });
  node.addEventListener("change", () => ctx.setValues({ [s.key]: node.value }));
  return {
    node,
    body: node,
    sync(v, c) {
      const offer = c.options.map((o) => o.value).join(",");
      if (node.mgOffer !== offer) {
        node.mgOffer = offer;
        node.replaceChildren(...c.options.map((o) => mgEl("option", { value: o.value, text: o.label })));
      }
      node.value = v;
    },
  };
}

const CHAT_SETTING_KINDS = {
  text: chatTextSetting,
  lines: chatTextSetting,
  json: chatTextSetting,
  number: chatNumberSetting,
  slider: chatSliderSetting,
  segmented: chatChoiceSetting,
  select: chatChoiceSetting,
};

/** One row per declared setting: its control, label, help and API name from the spec. */
function chatSettingRow(ctx, s) {
  const control = (CHAT_SETTING_KINDS[s.control] || chatTextSetting)(ctx, s, mgId(`mg-chat-${s.key}`));
  const info = ctx.field(s.key);
  const field = { id: control.node.id, label: info.label, help: info.help, apiName: info.api };
  const row = mgField({ ...field, control: control.body });
  return { row, control };
}

/** Whether a setting shows: offered on this protocol, and chosen by its selector (or, with
 * an empty `in`, while the setting it depends on is filled). */
function chatSettingShown(c, v) {
  if (!c.offered) return false;
  const when = c.show_when;
  if (!when) return true;
  return when.in.length ? when.in.includes(v[when.key]) : Boolean(String(v[when.key] || "").trim());
}

/** "Settings": the catalog's chat settings; opens itself on a problem. */
function chatSettings(ctx) {
  const rows = new Map(); // key -> { row, control }
  const summary = mgEl("summary", { class: "mg-chat__summary" }, "Settings");
  const form = mgEl("div", { class: "mg-form" });
  const el = mgEl("details", { class: "mg-chat__settings" }, summary, form);
  let declared = "";
  return {
    el,
    traits: ["values", "spec", "problems"],
    update(model) {
      const v = model.get("values") || {};
      const settings = model.get("spec")?.settings || [];
      const keys = settings.map((c) => `${c.key}:${c.control}`).join(",");
      if (keys !== declared) {
        declared = keys; // rebuilt only when the declared list changes
        rows.clear();
        for (const c of settings) rows.set(c.key, chatSettingRow(ctx, c));
        form.replaceChildren(...[...rows.values()].map((r) => r.row));
      }
      const problems = model.get("problems") || {};
      for (const c of settings) {
        const { row, control } = rows.get(c.key);
        control.sync(v[c.key], c);
        row.hidden = !chatSettingShown(c, v);
        row.mgSetError(problems[c.key] || "");
      }
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
