// Image and video panels (after the kit): a form drawn from the `spec` trait beside a gallery of
// result cards (kit_media.js). Python owns the values, validation and the ledger: these
// components render traits, write `values` / `touched` and send {"action": ...} messages.

function mgGenShown(control, values) {
  if (!control.show_when) return true;
  return control.show_when.in.includes(values[control.show_when.key]);
}

function mgGenLines(value) {
  if (Array.isArray(value)) return value.join("\n");
  return value == null ? "" : String(value);
}

/** What the form's rows depend on: a change of it redraws the form, anything else syncs it. */
function mgGenStructure(model, fam, values) {
  const shown = fam.controls.filter((c) => mgGenShown(c, values)).map((c) => c.key);
  const typed = model.get("suggestions")[fam.id] || [];
  // the offer of families and models changes when a classroom gateway allows fewer
  const offer = model.get("spec").families.map((f) => [f.id, f.models.map((m) => m.value)]);
  return JSON.stringify([fam.id, shown, model.get("offered"), model.get("assets"), typed, offer]);
}

/**
 * The form's shared state: what was touched, and typing that is sent after a short pause. An
 * action first sends what is still pending, so Generate never goes out with the prompt as it
 * was 250 ms ago.
 */
function mgGenState(model) {
  const touched = new Set(model.get("touched"));
  const timers = {};
  const pending = {};
  const save = (changes) => {
    for (const key of Object.keys(changes)) touched.add(key);
    model.set("values", { ...model.get("values"), ...changes });
    model.set("touched", [...touched]);
    model.save_changes();
  };
  const st = {
    touched,
    rows: new Map(), // control key -> {row, input, sync}
    structure: "",
    values: () => ({ ...model.get("values") }),
    family() {
      const families = model.get("spec").families;
      return families.find((f) => f.id === model.get("values").family) || families[0];
    },
    commit(key, value) {
      clearTimeout(timers[key]);
      delete pending[key];
      save({ [key]: value });
    },
    commitSoon(key, value) {
      clearTimeout(timers[key]);
      pending[key] = value;
      timers[key] = setTimeout(() => st.commit(key, value), 250);
    },
    flush() {
      const changes = { ...pending };
      for (const key of Object.keys(changes)) {
        clearTimeout(timers[key]);
        delete pending[key];
      }
      if (Object.keys(changes).length) save(changes);
    },
    generate() {
      st.flush();
      model.send({ action: "generate" }); // Python checks the form; an invalid one shows its errors
    },
    id: (key) => `${model.get("panel_name")}-${st.family().id}-${key}`,
    focused: (node) => node.getRootNode().activeElement === node,
  };
  return st;
}

/** "Insert an Active image…": a select that puts an asset://id into a reference field. */
function mgGenAssetPicker(model, control, onPick) {
  const offered = model.get("assets").filter((a) => a.type === control.assets);
  if (!control.assets || !offered.length) return null;
  const first = { value: "", label: `Insert an Active ${control.assets.toLowerCase()}…` };
  const select = mgSelect({
    options: [first, ...offered.map((a) => ({ value: a.uri, label: a.label }))],
    value: "",
    onChange: (uri) => {
      if (!uri) return;
      onPick(uri);
      select.value = "";
    },
  });
  select.setAttribute("aria-label", `Insert an Active asset into ${control.label}`);
  select.classList.add("mg-gen__asset");
  return select;
}

/** A prompt (Ctrl+Enter generates) or a list of reference URLs, one per line. */
function mgGenTextArea(model, st, control, value) {
  const key = control.key;
  const refs = control.type === "refs";
  const read = () => (refs ? input.value.split("\n") : input.value);
  const input = mgEl("textarea", {
    name: key,
    rows: refs ? 2 : 4,
    placeholder: refs ? `${control.placeholder || "https://…"} (one per line)` : control.placeholder,
    onInput: () => st.commitSoon(key, read()),
    onChange: () => st.commit(key, read()),
  });
  input.value = mgGenLines(value);
  input.addEventListener("keydown", (e) => {
    if (refs || e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    st.commit(key, input.value);
    st.generate();
  });
  const append = (uri) => st.commit(key, [...input.value.split("\n").filter((l) => l.trim()), uri]);
  const extra = refs ? mgGenAssetPicker(model, control, append) : null;
  const sync = (val) => {
    if (!st.focused(input)) input.value = mgGenLines(val);
  };
  return { input, sync, extra };
}

/** One line of text: numbers, sizes and single references (the validator names bad input). */
function mgGenLine(model, st, control, value) {
  const key = control.key;
  const input = mgEl("input", {
    type: "text",
    name: key,
    inputmode: control.type === "number" ? "numeric" : undefined,
    placeholder: control.placeholder,
    onInput: () => st.commitSoon(key, input.value),
    onChange: () => st.commit(key, input.value),
  });
  input.value = value == null ? "" : String(value);
  const sync = (val) => {
    if (!st.focused(input)) input.value = val == null ? "" : String(val);
  };
  const extra = control.type === "ref" ? mgGenAssetPicker(model, control, (uri) => st.commit(key, uri)) : null;
  return { input, sync, extra };
}

/** A select, a segmented control or a checkbox, by the control's type. */
function mgGenChoice(st, control, value, options) {
  const key = control.key;
  if (control.type !== "checkbox" && options.length === 1) {
    // one allowed value (a model with one resolution): plain text, nothing to choose
    const input = mgEl("output", { class: "mg-gen__fixed", name: key, text: options[0].label });
    return { input, sync: () => {} };
  }
  if (control.type === "select") {
    const pick = (val) => options.find((o) => String(o.value) === val)?.value ?? val;
    const input = mgSelect({ name: key, options, value, onChange: (val) => st.commit(key, pick(val)) });
    const sync = (val) => {
      input.value = val == null ? "" : String(val);
    };
    return { input, sync };
  }
  if (control.type === "segmented") {
    const input = mgSegmented({ name: key, label: control.label, options, value, onChange: (v) => st.commit(key, v) });
    return { input, sync: (val) => input.mgSet(val) };
  }
  const box = mgEl("input", { type: "checkbox", name: key, checked: Boolean(value) });
  box.addEventListener("change", () => st.commit(key, box.checked));
  const input = mgEl("label", { class: "mg-gen__check" }, box, mgEl("span", { text: control.help || control.label }));
  const sync = (val) => {
    box.checked = Boolean(val);
  };
  return { input, sync };
}

/** One control of the family as a form row: {row, input, sync}. */
function mgGenControl(model, st, control) {
  const vals = st.values();
  const v = vals[control.key];
  const offered = model.get("offered")[control.key];
  const options = control.options.filter((o) =>
    (!offered || offered.some((x) => x === o.value)) && (!o.rare || o.value === v));
  const made = ["text", "refs"].includes(control.type)
    ? mgGenTextArea(model, st, control, v)
    : ["select", "segmented", "checkbox"].includes(control.type)
      ? mgGenChoice(st, control, v, options)
      : mgGenLine(model, st, control, v);
  const limit = control.max_items_by_model[vals.model] ?? control.max_items;
  let help = control.type === "checkbox" ? "" : control.help;
  if (control.type === "refs" && limit) help = `${help ? `${help} ` : ""}Up to ${limit}.`;
  const body = made.extra ? mgEl("div", { class: "mg-gen__refrow" }, made.input, made.extra) : made.input;
  const id = st.id(control.key);
  const { label, api: apiName, required } = control;
  const row = mgField({ id, label, help, apiName, control: body, required });
  if (body !== made.input && made.input.matches("input, textarea, select")) {
    made.input.id = `${id}-input`;
    row.querySelector(".mg-field__label").setAttribute("for", made.input.id);
    body.removeAttribute("aria-labelledby");
  }
  row.dataset.base = help || "";
  return { row, input: made.input, sync: made.sync };
}

/** The family select: changing it asks Python for that family's remembered values. */
function mgGenFamilyRow(model, fam) {
  const select = mgSelect({
    name: "family",
    options: model.get("spec").families.map((f) => ({ value: f.id, label: f.title })),
    value: fam.id,
    onChange: (id) => model.send({ action: "family", family: id }),
  });
  const label = model.get("spec").kind === "image" ? "Image model family" : "Video model family";
  const id = `${model.get("panel_name")}-family`;
  return mgField({ id, label, help: fam.description, apiName: `endpoint ${fam.id}`, control: select });
}

/** The model: a select of the catalog's names, or typed (with suggestions) where it lists none. */
function mgGenModelRow(model, st, fam) {
  const current = st.values().model || "";
  let input;
  let help = "";
  let list = null;
  if (fam.free_model) {
    const listId = `${st.id("models")}`;
    const placeholder = "model name, as your account lists it";
    input = mgEl("input", { type: "text", name: "model", list: listId, placeholder });
    input.addEventListener("input", () => st.commitSoon("model", input.value));
    input.addEventListener("change", () => st.commit("model", input.value));
    input.value = current;
    help = "The service documentation lists no model names for this family: type the one your account uses.";
    const typed = model.get("suggestions")[fam.id] || [];
    list = mgEl("datalist", { id: listId }, typed.map((n) => mgEl("option", { value: n })));
  } else {
    input = mgSelect({ name: "model", options: fam.models, value: current, onChange: (m) => st.commit("model", m) });
  }
  const row = mgField({ id: st.id("model"), label: "Model", help, apiName: "model", control: input, required: true });
  if (list) row.append(list);
  row.dataset.base = help;
  const sync = (val) => {
    if (!st.focused(input)) input.value = val || "";
  };
  return { row, input, sync };
}

/** "More parameters (JSON)": any other body field, open when the family is partly documented. */
function mgGenExtraRow(st, fam) {
  const input = mgEl("textarea", { name: "extra", rows: 3, placeholder: fam.extra_example || "{}" });
  input.addEventListener("input", () => st.commitSoon("extra", input.value));
  input.addEventListener("change", () => st.commit("extra", input.value));
  input.value = st.values().extra || "";
  const help = fam.documented
    ? "Optional JSON object; its keys override the fields above."
    : "This family is partly documented: add other parameters as a JSON object.";
  const apiName = "any other body field";
  const row = mgField({ id: st.id("extra"), label: "More parameters", help, apiName, control: input });
  row.dataset.base = help;
  const more = mgEl("details", { class: "mg-gen__more", open: !fam.documented || Boolean(input.value) },
    mgEl("summary", { text: "More parameters (JSON)" }), row);
  const sync = (val) => {
    if (!st.focused(input)) input.value = val || "";
  };
  return { row, more, input, sync };
}

/** Errors of touched fields (all of them after a Generate), warnings beside the help. */
function mgGenShowProblems(model, st) {
  const all = model.get("problems");
  const shown = new Set([...st.touched, ...model.get("touched")]);
  for (const [key, r] of st.rows) {
    const mine = all.filter((p) => p.key === key);
    const show = model.get("attempted") || shown.has(key);
    r.row.mgSetError(show ? mine.filter((p) => p.error).map((p) => p.message).join("\n") : "");
    const warnings = mine.filter((p) => !p.error).map((p) => p.message);
    r.row.mgSetHelp([r.row.dataset.base, ...warnings].filter(Boolean).join(" "));
  }
}

/** Draw every row of the chosen family; the focused field keeps the focus. */
function mgGenBuild(model, st, form) {
  const fam = st.family();
  st.structure = mgGenStructure(model, fam, st.values());
  st.rows = new Map();
  const modelRow = mgGenModelRow(model, st, fam);
  st.rows.set("model", modelRow);
  for (const control of fam.controls) {
    const offered = model.get("offered")[control.key];
    if (!mgGenShown(control, st.values()) || (offered && !offered.length)) continue; // not sent
    st.rows.set(control.key, mgGenControl(model, st, control));
  }
  const extra = mgGenExtraRow(st, fam);
  st.rows.set("extra", extra);
  const active = form.getRootNode().activeElement;
  const focusName = active && form.contains(active) ? active.getAttribute("name") : null;
  const rows = [...st.rows.values()].filter((r) => r !== extra).map((r) => r.row);
  mgReplace(form, mgGenFamilyRow(model, fam), rows, extra.more);
  if (focusName) form.querySelector(`[name="${focusName}"]`)?.focus();
}

/** The request form: redrawn when its rows change, synced value by value otherwise. */
function mgGenForm(model, st) {
  const kind = model.get("spec").kind;
  const el = mgEl("form", { class: "mg-form", novalidate: true, "aria-label": `${kind} request` });
  el.addEventListener("submit", (e) => e.preventDefault());
  return {
    el,
    traits: ["values", "offered", "assets", "suggestions", "problems", "touched", "attempted", "spec"],
    update() {
      if (!model.get("spec").families.length) {
        // a classroom gateway that allows no model of this kind
        st.structure = "";
        mgReplace(el, mgEl("p", { class: "mg-muted", text: `Your class uses no ${kind} models.` }));
        return;
      }
      const vals = st.values();
      if (mgGenStructure(model, st.family(), vals) !== st.structure) mgGenBuild(model, st, el);
      else for (const [key, r] of st.rows) r.sync(vals[key]);
      mgGenShowProblems(model, st);
    },
  };
}

/** Generate, why it is disabled, and "Sending 2 requests…". */
function mgGenActions(model, st) {
  const generate = mgButton({ label: "Generate", kind: "primary", action: "generate", onClick: () => st.generate() });
  const hint = mgEl("span", { class: "mg-hint", id: mgId(`${model.get("panel_name")}-hint`), "aria-live": "polite" });
  generate.setAttribute("aria-describedby", hint.id);
  const sending = mgEl("span", { class: "mg-hint", "aria-live": "polite" });
  return {
    el: mgEl("div", { class: "mg-row mg-gen__actions" }, generate, hint, sending),
    traits: ["can_generate", "hint", "sending"],
    update() {
      generate.disabled = !model.get("can_generate");
      hint.textContent = generate.disabled ? model.get("hint") : "";
      const n = model.get("sending");
      sending.textContent = n ? `Sending ${n} request${n > 1 ? "s" : ""}…` : "";
    },
  };
}

/**
 * "Open a saved file": a file carrying its request (saved by Save) refills the form; the file
 * can also be dropped anywhere on the request column. The kernel reads it (`open_file`).
 */
function mgGenOpenFile(model, column) {
  const accept = "image/png,video/mp4,.json";
  const input = mgEl("input", { type: "file", accept, "aria-label": "Saved file", tabindex: "-1" });
  input.hidden = true; // the button opens it
  const title = "Refill the form from a file saved by Save";
  const button = mgButton({ label: "Open a saved file", action: "open_file", title });
  const send = async (file) => {
    if (file) model.send({ action: "open_file", name: file.name }, [await file.arrayBuffer()]);
  };
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    send(input.files?.[0]);
    input.value = "";
  });
  column.addEventListener("dragover", (event) => {
    if (event.dataTransfer?.types?.includes("Files")) event.preventDefault();
  });
  column.addEventListener("drop", (event) => {
    const file = event.dataTransfer?.files?.[0];
    if (!file) return;
    event.preventDefault();
    send(file);
  });
  return mgEl("div", { class: "mg-row mg-gen__open" }, button, input);
}

/** "Images" or "Videos", and the demo-mode chip when the panel stands alone. */
function mgGenHeader(model) {
  const chip = mgChip("", "neutral");
  const title = model.get("spec").kind === "image" ? "Images" : "Videos";
  return {
    el: mgEl("header", { class: "mg-gen__header" }, mgEl("h2", { class: "mg-gen__title", text: title }), chip),
    traits: ["mode", "demo", "show_mode"],
    update() {
      chip.hidden = !model.get("show_mode");
      chip.querySelector(".mg-chip__text").textContent = model.get("mode");
      chip.className = `mg-chip mg-chip--${model.get("demo") ? "accent" : "success"}`;
    },
  };
}

/** The results column: "Results 3 · 2 done", the gallery of cards, the lightbox and Save. */
function mgGenResults(model) {
  const kind = model.get("spec").kind;
  const noun = kind === "image" ? "images" : "videos";
  const urls = new Map(); // result id -> object URL of its preview
  const full = new Map(); // result id -> object URL of the full-size file
  const find = (id) =>
    model.get("results").find((x) => x.id === id) ||
    model.get("compare_rows").flatMap((w) => w.cards).find((x) => x.id === id);
  let lightbox = null;
  let pendingSave = null;
  let receivedAt = performance.now();
  const preview = (id) => {
    const media = model.get("media")[id];
    if (!media?.data) return null;
    if (!urls.has(id)) urls.set(id, mgBlobUrl(media.data, media.mime));
    return urls.get(id);
  };
  const download = (id, url) => {
    mgDownload(url, find(id).file_name);
    model.send({ action: "saved", id });
  };
  const on = {
    cancel: (id) => model.send({ action: "cancel", id }),
    remove: (id) => model.send({ action: "remove", id }),
    rerun: (id) => model.send({ action: "rerun", id }),
    use: model.get("can_use") ? (id, use, family) => model.send({ action: "use", id, use, family }) : null,
    code: (id) => find(id)?.code || "",
    share: (id) => mgShareLink(find(id)?.share || ""),
    open: (id) => {
      const close = () => {
        lightbox = null;
      };
      const files = { url: (i) => full.get(i) || preview(i), has: (i) => full.has(i) };
      lightbox = mgGenLightbox(model, id, root, files, close);
    },
    save: (id) => {
      const r = find(id);
      const url = full.get(id) || (r?.kind === "video" ? preview(id) : null);
      if (url) download(id, url);
      else if (r) {
        pendingSave = id;
        model.send({ action: "full", id, purpose: "save" });
      }
    },
  };
  const elapsed = (r) => {
    if (MG_TERMINAL.has(r.status)) return r.elapsed;
    return r.elapsed + (performance.now() - receivedAt) / 1000;
  };
  const gallery = mgGallery({
    label: `Generated ${noun}`,
    make: (r) => mgResultCard(r.id, on),
    update: (card, r) => {
      card.update(r, r.has_media ? preview(r.id) : null);
      card.tick(r, elapsed(r));
    },
    drop: (id) => {
      for (const map of [urls, full]) {
        if (map.has(id)) URL.revokeObjectURL(map.get(id));
        map.delete(id);
      }
    },
  });
  const count = mgEl("span", { class: "mg-muted" });
  const empty = mgEl("p", { class: "mg-gen__empty mg-muted", text: `Your ${noun} appear here, newest first.` });
  const saved = mgStatusLine("save_note", "mg-gen__saved", "save_path");
  const compared = mgCmpRows(model, on, preview, elapsed);
  const root = mgEl("section", { class: "mg-gen__results", "aria-label": "Results" },
    mgEl("div", { class: "mg-row" }, mgEl("h3", { text: "Results" }), count), saved.el, compared.el, empty, gallery.el);
  const ticker = setInterval(() => {
    compared.tick();
    for (const r of model.get("results")) {
      if (!MG_TERMINAL.has(r.status)) gallery.entries.get(r.id)?.tick(r, elapsed(r));
    }
  }, 1000);
  const cards = {
    traits: ["results", "media"],
    update() {
      receivedAt = performance.now();
      const results = model.get("results");
      gallery.sync(results);
      const done = results.filter((r) => r.status === "completed").length;
      count.textContent = results.length ? `${results.length} · ${done} done` : "";
      empty.hidden = results.length > 0 || model.get("compare_rows").length > 0;
    },
    onMessage(msg, buffers) {
      if (msg?.kind !== "full" || !buffers?.length) return;
      if (full.has(msg.id)) URL.revokeObjectURL(full.get(msg.id));
      full.set(msg.id, mgBlobUrl(buffers[0], msg.mime));
      if (msg.purpose === "save" && pendingSave === msg.id && find(msg.id)) {
        pendingSave = null;
        download(msg.id, full.get(msg.id));
      }
      lightbox?.upgrade(msg.id, full.get(msg.id));
    },
    dispose() {
      clearInterval(ticker);
      lightbox?.close();
      for (const u of [...urls.values(), ...full.values()]) URL.revokeObjectURL(u);
    },
  };
  return { el: root, parts: [cards, saved, compared, mgFrameDrawer(model)] };
}

/**
 * The lightbox over every completed picture, starting at `id`; images ask the kernel for their
 * full-size file, and `upgrade(id, url)` swaps it in when it is the one shown.
 */
function mgGenLightbox(model, id, host, files, onClose) {
  const all = [...model.get("compare_rows").flatMap((w) => w.cards), ...model.get("results")];
  const results = all.filter((r) => r.status === "completed" && r.has_media);
  const ids = results.map((r) => r.id);
  const items = results.map((r) => ({
    src: files.url(r.id),
    kind: r.kind,
    alt: r.prompt || r.title,
    caption: `${r.title} · ${r.prompt}`,
  }));
  const box = mgLightbox({ items, index: Math.max(0, ids.indexOf(id)), host, onClose });
  if (model.get("spec").kind === "image") {
    for (const r of results) if (!files.has(r.id)) model.send({ action: "full", id: r.id, purpose: "view" });
  }
  return {
    close: () => box.close(),
    upgrade(upId, url) {
      const at = ids.indexOf(upId);
      if (at < 0) return;
      items[at].src = url;
      if (box.index() === at) box.el.querySelector("img.mg-lightbox__media")?.setAttribute("src", url);
    },
  };
}

/** The request column: the form, Generate, copy as code, and "Open a saved file". */
function mgGenRequest(model, st) {
  const single = mgGenForm(model, st);
  const code = mgCodeBox("mg-gen__codebox");
  const rowCode = mgCodeBox("mg-gen__codebox", "compare_code");
  const swap = {
    traits: ["compare"],
    update() {
      const on = model.get("compare");
      single.el.hidden = code.el.hidden = on;
      rowCode.el.hidden = !on;
    },
  };
  const group = mgGroup({ tag: "section", class: "mg-gen__form", "aria-label": "Request" },
    mgCmpSwitch(model), single, mgCmpForm(model, st), mgGenActions(model, st), code, rowCode, swap);
  group.el.append(mgGenOpenFile(model, group.el));
  return group;
}

function render({ model, el }) {
  const st = mgGenState(model);
  return mgCompose(model, el, model.get("panel_name"), [
    mgGenHeader(model),
    mgNoticePart(model),
    mgGroup({ class: "mg-gen" },
      mgGenRequest(model, st),
      mgGenResults(model)),
  ]);
}

export default { render };
