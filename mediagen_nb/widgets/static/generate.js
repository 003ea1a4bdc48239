// Image and video panels: a form drawn from the `spec` trait and a results gallery
// (hand-written ES module after kit.js; no build step). Python owns the values, validation
// and the ledger: this module renders traits, writes `values`/`touched` and sends actions.

const MG_TERMINAL = new Set(["completed", "failed", "cancelled"]);

function mgGenStructureKey(model, fam, values) {
  const shown = fam.controls.filter((c) => mgGenShown(c, values)).map((c) => c.key);
  return JSON.stringify([fam.id, shown, model.get("offered"), model.get("assets"), model.get("suggestions")[fam.id] || []]);
}

function mgGenShown(control, values) {
  if (!control.show_when) return true;
  return control.show_when.in.includes(values[control.show_when.key]);
}

function mgGenLines(value) {
  if (Array.isArray(value)) return value.join("\n");
  return value == null ? "" : String(value);
}

function render({ model, el }) {
  const kind = model.get("spec").kind;
  const noun = kind === "image" ? "images" : "videos";
  const root = mgPanel(el, model.get("panel_name"));
  const urls = new Map(); // result id -> object URL of its preview
  const fullUrls = new Map(); // result id -> object URL of the full-size file
  const cards = new Map(); // result id -> {el, parts}
  const touched = new Set(model.get("touched"));
  let receivedAt = performance.now();
  let lightbox = null;
  let lightboxIds = [];
  let structure = "";
  let rows = new Map(); // control key -> {row, input, sync}
  let pendingSave = null;

  // --- header -----------------------------------------------------------------------------
  const modeChip = mgChip("", "neutral");
  const header = mgEl("header", { class: "mg-gen__header" },
    mgEl("h2", { class: "mg-gen__title", text: kind === "image" ? "Images" : "Videos" }), modeChip);
  const notice = mgNotice(model);

  // --- form -------------------------------------------------------------------------------
  const form = mgEl("form", { class: "mg-form", novalidate: true, "aria-label": `${kind} request`, onSubmit: (e) => e.preventDefault() });
  const generate = mgButton({ label: "Generate", kind: "primary", action: "generate", onClick: () => { flush(); model.send({ action: "generate" }); } });
  const hint = mgEl("span", { class: "mg-hint", id: `${model.get("panel_name")}-hint-${Math.random().toString(36).slice(2, 7)}`, "aria-live": "polite" });
  generate.setAttribute("aria-describedby", hint.id);
  const sending = mgEl("span", { class: "mg-hint", "aria-live": "polite" });
  const actions = mgEl("div", { class: "mg-row mg-gen__actions" }, generate, hint, sending);
  const codeText = mgEl("pre", { class: "mg-gen__code" });
  const codeCopy = mgCopy(() => model.get("code"), "Copy");
  const codeBox = mgEl("details", { class: "mg-gen__codebox" },
    mgEl("summary", { text: "Copy as code" }),
    mgEl("div", { class: "mg-code" }, codeText, codeCopy));
  const formCol = mgEl("section", { class: "mg-gen__form", "aria-label": "Request" }, form, actions, codeBox);

  // --- gallery ----------------------------------------------------------------------------
  const count = mgEl("span", { class: "mg-muted" });
  const empty = mgEl("p", { class: "mg-gen__empty mg-muted", text: `Your ${noun} appear here, newest first.` });
  const gallery = mgEl("div", { class: "mg-gallery", role: "list", "aria-label": `Generated ${noun}` });
  const galleryCol = mgEl("section", { class: "mg-gen__results", "aria-label": "Results" },
    mgEl("div", { class: "mg-row" }, mgEl("h3", { text: "Results" }), count), empty, gallery);

  root.append(header, notice, mgEl("div", { class: "mg-gen" }, formCol, galleryCol));

  // --- values -----------------------------------------------------------------------------
  function values() { return { ...model.get("values") }; }
  function family() {
    const id = model.get("values").family;
    return model.get("spec").families.find((f) => f.id === id) || model.get("spec").families[0];
  }
  function commit(key, value) {
    const next = values();
    next[key] = value;
    touched.add(key);
    model.set("values", next);
    model.set("touched", [...touched]);
    model.save_changes();
  }
  const timers = {};
  const pending = {};
  function commitSoon(key, value) {
    clearTimeout(timers[key]);
    pending[key] = value;
    timers[key] = setTimeout(() => { delete pending[key]; commit(key, value); }, 250);
  }
  // Typing is sent after a short pause; an action first sends what is still pending, so
  // Generate never goes out with the prompt as it was 250 ms ago.
  function flush() {
    const keys = Object.keys(pending);
    if (!keys.length) return;
    const next = values();
    for (const key of keys) {
      clearTimeout(timers[key]);
      next[key] = pending[key];
      touched.add(key);
      delete pending[key];
    }
    model.set("values", next);
    model.set("touched", [...touched]);
    model.save_changes();
  }

  function assetPicker(control, onPick) {
    const offered = model.get("assets").filter((a) => a.type === control.assets);
    if (!control.assets || !offered.length) return null;
    const select = mgSelect({
      options: [{ value: "", label: `Insert an Active ${control.assets.toLowerCase()}…` }, ...offered.map((a) => ({ value: a.uri, label: a.label }))],
      value: "",
      onChange: (uri) => { if (uri) { onPick(uri); select.value = ""; } },
    });
    select.setAttribute("aria-label", `Insert an Active asset into ${control.label}`);
    select.classList.add("mg-gen__asset");
    return select;
  }

  function makeControl(control, fam) {
    const key = control.key;
    const v = values()[key];
    const offered = model.get("offered")[key];
    const options = control.options.filter((o) => (!offered || offered.some((x) => x === o.value)) && (!o.rare || o.value === v));
    let input;
    let sync = () => {};
    let extra = null;
    if (control.type === "text" || control.type === "refs") {
      input = mgEl("textarea", {
        name: key,
        rows: control.type === "text" ? 4 : 2,
        placeholder: control.type === "refs" ? `${control.placeholder || "https://…"} (one per line)` : control.placeholder,
        onInput: () => commitSoon(key, control.type === "refs" ? input.value.split("\n") : input.value),
        onChange: () => commit(key, control.type === "refs" ? input.value.split("\n") : input.value),
      });
      input.value = mgGenLines(v);
      if (control.type === "text") {
        input.addEventListener("keydown", (e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            flush();
            commit(key, input.value);
            model.send({ action: "generate" }); // Python checks the form; an invalid one shows its errors
          }
        });
      }
      sync = (val) => { if (document.activeElement !== input && root.getRootNode().activeElement !== input) input.value = mgGenLines(val); };
      if (control.type === "refs") {
        extra = assetPicker(control, (uri) => {
          const lines = input.value.split("\n").filter((l) => l.trim());
          commit(key, [...lines, uri]);
        });
      }
    } else if ((control.type === "select" || control.type === "segmented") && options.length === 1) {
      // one allowed value (a model with one resolution): plain text, nothing to choose
      input = mgEl("output", { class: "mg-gen__fixed", name: key, text: options[0].label });
    } else if (control.type === "select") {
      input = mgSelect({ name: key, options, value: v, onChange: (val) => commit(key, options.find((o) => String(o.value) === val)?.value ?? val) });
      sync = (val) => { input.value = val == null ? "" : String(val); };
    } else if (control.type === "segmented") {
      input = mgSegmented({ name: key, label: control.label, options, value: v, onChange: (val) => commit(key, val) });
      sync = (val) => input.mgSet(val);
    } else if (control.type === "checkbox") {
      const box = mgEl("input", { type: "checkbox", name: key, checked: Boolean(v), onChange: () => commit(key, box.checked) });
      input = mgEl("label", { class: "mg-gen__check" }, box, mgEl("span", { text: control.help || control.label }));
      sync = (val) => { box.checked = Boolean(val); };
    } else {
      // number, ref, size: one line of text (bad input reaches the validator, which names it)
      input = mgEl("input", {
        type: "text",
        name: key,
        inputmode: control.type === "number" ? "numeric" : undefined,
        placeholder: control.placeholder,
        onInput: () => commitSoon(key, input.value),
        onChange: () => commit(key, input.value),
      });
      input.value = v == null ? "" : String(v);
      sync = (val) => { if (root.getRootNode().activeElement !== input) input.value = val == null ? "" : String(val); };
      if (control.type === "ref") extra = assetPicker(control, (uri) => commit(key, uri));
    }
    const limit = control.max_items_by_model[values().model] ?? control.max_items;
    let help = control.type === "checkbox" ? "" : control.help;
    if (control.type === "refs" && limit) help = `${help ? `${help} ` : ""}Up to ${limit}.`;
    const body = extra ? mgEl("div", { class: "mg-gen__refrow" }, input, extra) : input;
    const row = mgField({ id: `${model.get("panel_name")}-${fam.id}-${key}`, label: control.label, help, apiName: control.api, control: body, required: control.required });
    if (body !== input && input.matches("input, textarea, select")) {
      input.id = `${model.get("panel_name")}-${fam.id}-${key}-input`;
      row.querySelector(".mg-field__label").setAttribute("for", input.id);
      body.removeAttribute("aria-labelledby");
    }
    return { row, input, sync };
  }

  function buildForm() {
    const fam = family();
    const vals = values();
    structure = mgGenStructureKey(model, fam, vals);
    rows = new Map();
    const families = model.get("spec").families;
    const famSelect = mgSelect({
      name: "family",
      options: families.map((f) => ({ value: f.id, label: f.title })),
      value: fam.id,
      onChange: (id) => model.send({ action: "family", family: id }),
    });
    const famRow = mgField({ id: `${model.get("panel_name")}-family`, label: kind === "image" ? "Image model family" : "Video model family", help: fam.description, apiName: `endpoint ${fam.id}`, control: famSelect });
    let modelInput;
    let modelHelp = "";
    if (fam.free_model) {
      const listId = `${model.get("panel_name")}-${fam.id}-models`;
      const names = model.get("suggestions")[fam.id] || [];
      modelInput = mgEl("input", { type: "text", name: "model", list: listId, placeholder: "model name, as your account lists it", onInput: () => commitSoon("model", modelInput.value), onChange: () => commit("model", modelInput.value) });
      modelInput.value = vals.model || "";
      modelHelp = "The service documentation lists no model names for this family: type the one your account uses.";
      modelInput._mgDatalist = mgEl("datalist", { id: listId }, names.map((n) => mgEl("option", { value: n })));
    } else {
      modelInput = mgSelect({ name: "model", options: fam.models, value: vals.model, onChange: (m) => commit("model", m) });
    }
    const modelRow = mgField({ id: `${model.get("panel_name")}-${fam.id}-model`, label: "Model", help: modelHelp, apiName: "model", control: modelInput, required: true });
    if (modelInput._mgDatalist) modelRow.append(modelInput._mgDatalist);
    rows.set("model", { row: modelRow, input: modelInput, sync: (val) => { if (root.getRootNode().activeElement !== modelInput) modelInput.value = val || ""; } });
    const built = [famRow, modelRow];
    for (const control of fam.controls) {
      if (!mgGenShown(control, vals)) continue;
      const offered = model.get("offered")[control.key];
      if (offered && !offered.length) continue; // no valid option: the field is not sent
      const made = makeControl(control, fam);
      rows.set(control.key, made);
      built.push(made.row);
    }
    const extra = mgEl("textarea", { name: "extra", rows: 3, placeholder: '{"resolution": "1080p"}', onInput: () => commitSoon("extra", extra.value), onChange: () => commit("extra", extra.value) });
    extra.value = vals.extra || "";
    const extraRow = mgField({ id: `${model.get("panel_name")}-${fam.id}-extra`, label: "More parameters", help: fam.documented ? "Optional JSON object; its keys override the fields above." : "This family is partly documented: add other parameters as a JSON object.", apiName: "any other body field", control: extra });
    rows.set("extra", { row: extraRow, input: extra, sync: (val) => { if (root.getRootNode().activeElement !== extra) extra.value = val || ""; } });
    const more = mgEl("details", { class: "mg-gen__more", open: !fam.documented || Boolean(vals.extra) }, mgEl("summary", { text: "More parameters (JSON)" }), extraRow);
    const active = root.getRootNode().activeElement;
    const focusName = active && form.contains(active) ? active.getAttribute("name") : null;
    mgReplace(form, built, more);
    if (focusName) {
      const again = form.querySelector(`[name="${focusName}"]`);
      if (again) again.focus();
    }
    showProblems();
  }

  function syncValues() {
    const fam = family();
    const vals = values();
    if (mgGenStructureKey(model, fam, vals) !== structure) { buildForm(); return; }
    for (const [key, r] of rows) r.sync(vals[key]);
  }

  function showProblems() {
    const all = model.get("problems");
    const attempted = model.get("attempted");
    const serverTouched = new Set(model.get("touched"));
    for (const [key, r] of rows) {
      const mine = all.filter((p) => p.key === key);
      const show = attempted || touched.has(key) || serverTouched.has(key);
      const errors = mine.filter((p) => p.error).map((p) => p.message);
      const warnings = mine.filter((p) => !p.error).map((p) => p.message);
      r.row.mgSetError(show ? errors.join("\n") : "");
      const help = r.row.querySelector(".mg-field__help");
      if (help) {
        help.dataset.base = help.dataset.base ?? help.textContent;
        const text = [help.dataset.base, ...warnings].filter(Boolean).join(" ");
        r.row.mgSetHelp(text);
      }
    }
    const can = model.get("can_generate");
    generate.disabled = !can;
    hint.textContent = can ? "" : model.get("hint");
  }

  function syncSending() {
    const n = model.get("sending");
    sending.textContent = n ? `Sending ${n} request${n > 1 ? "s" : ""}…` : "";
  }

  function syncMode() {
    modeChip.hidden = !model.get("show_mode");
    modeChip.querySelector(".mg-chip__text").textContent = model.get("mode");
    modeChip.className = `mg-chip mg-chip--${model.get("demo") ? "accent" : "success"}`;
  }

  // --- cards ------------------------------------------------------------------------------
  function previewUrl(id) {
    const media = model.get("media")[id];
    if (!media || !media.data) return null;
    if (!urls.has(id)) urls.set(id, mgBlobUrl(media.data, media.mime));
    return urls.get(id);
  }

  function openLightbox(id) {
    const results = model.get("results").filter((r) => r.status === "completed" && r.has_media);
    lightboxIds = results.map((r) => r.id);
    const items = results.map((r) => ({
      src: fullUrls.get(r.id) || previewUrl(r.id),
      kind: r.kind,
      alt: r.prompt || r.title,
      caption: `${r.title} · ${r.prompt}`,
    }));
    const index = Math.max(0, lightboxIds.indexOf(id));
    lightbox = mgLightbox({ items, index, host: root, onClose: () => { lightbox = null; } });
    if (kind === "image") results.forEach((r) => { if (!fullUrls.has(r.id)) model.send({ action: "full", id: r.id, purpose: "view" }); });
  }

  function makeCard(r) {
    const parts = {};
    parts.badge = mgBadge(r.status);
    parts.title = mgEl("span", { class: "mg-card__title" });
    parts.meta = mgEl("span", { class: "mg-card__meta" });
    parts.resumed = mgChip("re-attached", "neutral");
    parts.cancel = mgButton({ label: "Cancel", kind: "ghost", action: "cancel", onClick: () => model.send({ action: "cancel", id: r.id }) });
    parts.remove = mgButton({ label: "Remove", kind: "ghost", action: "remove", title: "Remove from the gallery", onClick: () => model.send({ action: "remove", id: r.id }) });
    parts.head = mgEl("header", { class: "mg-card__head" }, parts.badge, parts.title, parts.cancel, parts.remove);
    parts.status = mgEl("div", { class: "mg-card__status" }, parts.meta, parts.resumed);
    parts.fill = mgEl("div", { class: "mg-progress__fill" });
    parts.progress = mgEl("div", { class: "mg-progress", role: "progressbar", "aria-label": "Progress against the estimate" }, parts.fill);
    parts.media = mgEl("div", { class: "mg-card__media" });
    parts.prompt = mgEl("p", { class: "mg-card__prompt" });
    parts.error = mgEl("p", { class: "mg-card__error" });
    parts.note = mgEl("p", { class: "mg-card__note mg-muted" });
    parts.save = mgButton({ label: "Save", kind: "secondary", action: "save", onClick: () => save(r.id) });
    parts.rerun = mgButton({ label: "Run again", kind: "secondary", action: "rerun", onClick: () => model.send({ action: "rerun", id: r.id }) });
    parts.copy = mgCopy(() => model.get("results").find((x) => x.id === r.id)?.code || "", "Copy as code");
    parts.actions = mgEl("div", { class: "mg-card__actions" }, parts.save, parts.rerun, parts.copy);
    const card = mgEl("article", { class: "mg-card", role: "listitem", "data-id": r.id },
      parts.head, parts.status, parts.progress, parts.media, parts.prompt, parts.error, parts.note, parts.actions);
    return { el: card, parts, mediaFor: null };
  }

  function updateCard(entry, r) {
    const { el: card, parts } = entry;
    card.dataset.status = r.status;
    card.setAttribute("aria-label", `${r.title}: ${r.status}`);
    const badge = mgBadge(r.status);
    parts.badge.replaceWith(badge);
    parts.badge = badge;
    parts.title.textContent = r.title;
    parts.title.title = `${r.model}${r.task_id ? ` · task ${r.task_id}` : ""}`;
    parts.resumed.hidden = !r.resumed;
    parts.prompt.textContent = r.prompt;
    parts.prompt.title = r.prompt;
    parts.error.textContent = r.error ? (r.status === "cancelled" ? r.error : `Why it failed: ${r.error}`) : "";
    parts.error.hidden = !r.error;
    parts.note.textContent = r.note;
    parts.note.hidden = !r.note;
    const done = MG_TERMINAL.has(r.status);
    parts.progress.hidden = done;
    parts.cancel.hidden = done;
    parts.save.hidden = r.status === "failed" || r.status === "cancelled"; // nothing to save
    parts.save.disabled = !(r.status === "completed" && (r.has_media || r.kind === "image"));
    const url = r.has_media ? previewUrl(r.id) : null;
    const mediaKey = `${r.status}:${url}`;
    if (entry.mediaFor !== mediaKey) {
      entry.mediaFor = mediaKey;
      if (url && r.kind === "video") {
        mgReplace(parts.media, mgEl("video", { src: url, controls: true, preload: "metadata", "aria-label": `Video: ${r.prompt}` }));
      } else if (url) {
        mgReplace(parts.media, mgEl("button", { type: "button", class: "mg-card__open", "aria-label": `Open larger: ${r.prompt}`, onClick: () => openLightbox(r.id) },
          mgEl("img", { src: url, alt: r.prompt || r.title })));
      } else if (!done) {
        mgReplace(parts.media, mgEl("span", { class: "mg-card__wait mg-muted", text: r.status === "queued" ? "Waiting in the queue…" : "Generating…" }));
      } else {
        mgReplace(parts.media, mgEl("span", { class: "mg-card__wait mg-muted", text: r.status === "completed" ? "No preview" : "No result" }));
      }
      parts.media.hidden = done && !url && r.status !== "completed";
    }
    tickCard(entry, r);
  }

  function tickCard(entry, r) {
    const done = MG_TERMINAL.has(r.status);
    const elapsed = done ? r.elapsed : r.elapsed + (performance.now() - receivedAt) / 1000;
    const [low, high] = r.eta;
    const eta = !done && high > 0 ? ` · usually ${mgFmtSeconds(low)} to ${mgFmtSeconds(high)}` : "";
    entry.parts.meta.textContent = done ? (r.status === "completed" ? `Took ${mgFmtSeconds(elapsed)}` : `After ${mgFmtSeconds(elapsed)}`) : `${mgFmtSeconds(elapsed)}${eta}`;
    if (!done && high > 0) entry.parts.fill.style.width = `${Math.min(100, (100 * elapsed) / high)}%`;
  }

  function syncResults() {
    receivedAt = performance.now();
    const results = model.get("results");
    const ids = new Set(results.map((r) => r.id));
    for (const [id, entry] of cards) {
      if (!ids.has(id)) {
        entry.el.remove();
        cards.delete(id);
        if (urls.has(id)) { URL.revokeObjectURL(urls.get(id)); urls.delete(id); }
        if (fullUrls.has(id)) { URL.revokeObjectURL(fullUrls.get(id)); fullUrls.delete(id); }
      }
    }
    let previous = null;
    for (const r of results) {
      let entry = cards.get(r.id);
      if (!entry) {
        entry = makeCard(r);
        cards.set(r.id, entry);
      }
      updateCard(entry, r);
      const wanted = previous ? previous.nextSibling : gallery.firstChild;
      if (wanted !== entry.el) gallery.insertBefore(entry.el, wanted);
      previous = entry.el;
    }
    const done = results.filter((r) => r.status === "completed").length;
    count.textContent = results.length ? `${results.length} · ${done} done` : "";
    empty.hidden = results.length > 0;
  }

  function syncMedia() {
    for (const [id, entry] of cards) {
      const r = model.get("results").find((x) => x.id === id);
      if (r) updateCard(entry, r);
    }
  }

  function save(id) {
    const r = model.get("results").find((x) => x.id === id);
    if (!r) return;
    if (fullUrls.has(id)) { mgDownload(fullUrls.get(id), r.file_name); return; }
    if (r.kind === "video" && previewUrl(id)) { mgDownload(previewUrl(id), r.file_name); return; }
    pendingSave = id;
    model.send({ action: "full", id, purpose: "save" });
  }

  function onCustom(msg, buffers) {
    if (!msg || msg.kind !== "full" || !buffers || !buffers.length) return;
    const url = mgBlobUrl(buffers[0], msg.mime);
    if (fullUrls.has(msg.id)) URL.revokeObjectURL(fullUrls.get(msg.id));
    fullUrls.set(msg.id, url);
    const r = model.get("results").find((x) => x.id === msg.id);
    if (msg.purpose === "save" && pendingSave === msg.id && r) { pendingSave = null; mgDownload(url, r.file_name); }
    if (lightbox) {
      const at = lightboxIds.indexOf(msg.id);
      const img = lightbox.el.querySelector("img.mg-lightbox__media");
      if (img && at >= 0 && lightbox.el.querySelector(".mg-lightbox__count")) {
        const shown = lightbox.el.querySelector(".mg-lightbox__count").textContent;
        const index = lightboxIds.length > 1 ? Number(shown.split(" ")[0]) - 1 : 0;
        if (index === at) img.src = url;
      }
    }
  }

  const ticker = setInterval(() => {
    for (const r of model.get("results")) {
      if (MG_TERMINAL.has(r.status)) continue;
      const entry = cards.get(r.id);
      if (entry) tickCard(entry, r);
    }
  }, 1000);

  const handlers = {
    "change:values": syncValues,
    "change:offered": syncValues,
    "change:assets": syncValues,
    "change:suggestions": syncValues,
    "change:problems": showProblems,
    "change:touched": showProblems,
    "change:attempted": showProblems,
    "change:can_generate": showProblems,
    "change:hint": showProblems,
    "change:code": () => { codeText.textContent = model.get("code"); },
    "change:sending": syncSending,
    "change:mode": syncMode,
    "change:demo": syncMode,
    "change:show_mode": syncMode,
    "change:results": syncResults,
    "change:media": syncMedia,
    "msg:custom": onCustom,
  };
  for (const [name, fn] of Object.entries(handlers)) model.on(name, fn);

  buildForm();
  codeText.textContent = model.get("code");
  syncSending();
  syncMode();
  syncResults();
  root.dataset.mgReady = "1";

  return () => {
    clearInterval(ticker);
    for (const [name, fn] of Object.entries(handlers)) model.off(name, fn);
    if (lightbox) lightbox.close();
    for (const u of [...urls.values(), ...fullUrls.values()]) URL.revokeObjectURL(u);
  };
}

export default { render };
