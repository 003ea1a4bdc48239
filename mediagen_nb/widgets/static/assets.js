// Assets panel (after the kit): upload reference media by file or URL to either asset library,
// watch the review, copy asset://id, delete with confirmation. Python owns the state: the
// components below render the traits `values`, `problems`, `hint`, `can_submit`, `demo`,
// `hosting_note`, `rows`, `status_text`, `busy`, `mode` and send {"action": ...} messages.

// one comm message; Jupyter drops websocket messages above 10 MiB
const MG_ASSET_MAX_FILE = 8 * 1024 * 1024;
const MG_ASSET_ACCEPT = "image/*,video/*,audio/*,application/pdf";

function mgAssetTypeOfFile(file) {
  const major = (file.type || "").split("/")[0];
  if (major === "image") return "Image";
  if (major === "video") return "Video";
  if (major === "audio") return "Audio";
  if (file.type === "application/pdf") return "Document";
  return null;
}

function mgAssetSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A small inline-SVG glyph for media without a thumbnail (no fonts, no URLs). */
function mgAssetIcon(kind) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "mg-asset__icon");
  const paths = {
    Image: "M4 5h16v14H4z M7 16l3.5-4 2.5 3 2-2.5 3 3.5z M9 9.5a1.5 1.5 0 1 0 0.01 0z",
    Video: "M3 6h13v12H3z M16 10l5-3v10l-5-3z",
    Audio: "M9 17a3 3 0 1 1-2-2.8V5l10-2v11a3 3 0 1 1-2-2.8V6.5l-6 1.2z",
    Document: "M6 3h8l4 4v14H6z M14 3v4h4 M8.5 12h7 M8.5 15h7 M8.5 18h5",
  };
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", paths[kind] || paths.Image);
  svg.append(path);
  return svg;
}

/** The libraries offered, from the catalog: [{value, label, types, names}]. */
function mgAssetLibraries(model) {
  return model.get("libraries");
}

function mgAssetValues(model) {
  const library = mgAssetLibraries(model)[0].value;
  return { library, asset_type: "Image", name: "", url: "", ...(model.get("values") || {}) };
}

function mgAssetSet(model, changes) {
  model.set("values", { ...mgAssetValues(model), ...changes });
  model.save_changes();
}

/** Why a chosen file cannot go to library `lib` ("" when it can). */
function mgAssetFileError(file, lib) {
  if (!file) return "";
  const kind = mgAssetTypeOfFile(file);
  if (file.size > MG_ASSET_MAX_FILE) return `File: ${mgAssetSize(file.size)} is over the 8 MB limit`;
  const types = lib.types.join(", ").toLowerCase();
  if (!kind || !lib.types.includes(kind)) return `File: ${lib.label} takes ${types} files`;
  return "";
}

/** The line beside Upload: what is going on, or what is missing. */
function mgAssetHint(model, state, v) {
  if (state.sending || model.get("busy")) return "Sending…";
  if (state.file) return state.fileError ? "" : `Ready: ${state.file.name}`;
  if (!v.url.trim()) return model.get("hint");
  return !model.get("can_submit") && !state.touched.has("url") ? "Check the URL" : "";
}

/** Library, file or URL, type and name: the fields of an upload. */
function mgAssetFields(model, upload) {
  const f = {};
  f.library = mgSegmented({
    name: "library",
    label: "Library",
    options: mgAssetLibraries(model).map(({ value, label }) => ({ value, label })),
    value: mgAssetValues(model).library,
    onChange: (v) => {
      const lib = mgAssetLibraries(model).find((l) => l.value === v);
      const type = mgAssetValues(model).asset_type;
      mgAssetSet(model, { library: v, asset_type: lib.types.includes(type) ? type : lib.types[0] });
    },
  });
  f.file = mgEl("input", { type: "file", name: "asset-file", accept: MG_ASSET_ACCEPT, class: "mg-asset-file" });
  f.chosen = mgEl("div", { class: "mg-row mg-asset-chosen" });
  f.url = mgEl("input", {
    type: "url",
    name: "asset-url",
    placeholder: "https://example.com/photo.png",
    autocomplete: "off",
    spellcheck: "false",
    onInput: () => mgAssetSet(model, { url: f.url.value }),
    onKeydown: (event) => {
      if (event.key !== "Enter") return;
      event.preventDefault();
      upload();
    },
  });
  f.type = mgSelect({ name: "asset-type", onChange: (v) => mgAssetSet(model, { asset_type: v }) });
  f.name = mgEl("input", { type: "text", name: "asset-name", placeholder: "optional label, e.g. hero portrait" });
  f.name.addEventListener("input", () => mgAssetSet(model, { name: f.name.value }));
  f.libraryRow = mgField({ label: "Library", control: f.library, help: "Where the asset is reviewed and kept." });
  f.fileRow = mgField({ label: "File", control: f.file });
  f.fileRow.querySelector(".mg-field__control").insertBefore(f.chosen, f.file.nextSibling);
  f.urlRow = mgField({ label: "or URL", control: f.url, help: "A public link the library can fetch.", apiName: "url" });
  f.typeRow = mgField({ label: "Type", control: f.type, apiName: "assetType" });
  const nameHelp = "Seedance 2.0 keeps a label with the asset.";
  f.nameRow = mgField({ label: "Name", control: f.name, help: nameHelp, apiName: "name" });
  return f;
}

/** Show the chosen file (as a removable chip) and the type it implies. */
function mgAssetShowFile(f, state, lib, v, sync) {
  const kind = state.file ? mgAssetTypeOfFile(state.file) : null;
  f.type.value = kind && lib.types.includes(kind) ? kind : v.asset_type;
  f.type.disabled = Boolean(state.file);
  f.url.disabled = Boolean(state.file);
  let chip = null;
  if (state.file) {
    const clear = () => {
      state.file = null;
      f.file.value = "";
      sync();
      f.file.focus();
    };
    const text = `${state.file.type || "unknown type"} · ${mgAssetSize(state.file.size)}`;
    chip = mgChip(text, state.fileError ? "error" : "accent", clear);
    chip.querySelector(".mg-chip__remove").setAttribute("aria-label", `Remove ${state.file.name}`);
  }
  mgReplace(f.chosen, chip);
}

/** Field errors: the URL's under the URL, a file's under File, the rest under the form. */
function mgAssetShowProblems(model, f, state, formError) {
  const problems = model.get("problems") || [];
  const urlProblem = problems.find((p) => p.field.startsWith("URL"));
  const showUrl = !state.file && state.touched.has("url") && urlProblem;
  f.urlRow.mgSetError(showUrl ? `${urlProblem.field}: ${urlProblem.message}` : "");
  f.fileRow.mgSetError(state.file ? state.fileError : "");
  const other = problems.filter((p) => !p.field.startsWith("URL"));
  const showOther = !state.file && state.touched.has("submit") && other.length;
  formError.textContent = showOther ? other.map((p) => `${p.field}: ${p.message}`).join("; ") : "";
  formError.hidden = !formError.textContent;
}

/** Send a chosen file (demo mode: the built-in service hosts it) as one comm message. */
function mgAssetSendFile(model, state, f, sync) {
  const chosen = state.file;
  state.sending = true;
  sync();
  chosen.arrayBuffer().then((buffer) => {
    const values = mgAssetValues(model);
    model.send({ action: "upload", name: chosen.name, type: chosen.type || "", values }, undefined, [buffer]);
    state.file = null;
    f.file.value = "";
    state.sending = false;
    state.touched.clear();
    sync();
  }, () => {
    state.sending = false;
    state.readError = "File: could not be read by the browser";
    sync();
  });
}

/** The upload form: fields, Upload / Check status, the hint and the status line. */
function mgAssetForm(model) {
  const state = { touched: new Set(), file: null, fileError: "", readError: "", sending: false };
  const upload = () => {
    for (const key of ["url", "file", "submit"]) state.touched.add(key);
    if (state.file && model.get("demo") && !state.fileError) mgAssetSendFile(model, state, f, sync);
    else if (!state.file && model.get("can_submit")) {
      model.send({ action: "upload", values: mgAssetValues(model) });
      state.touched.clear();
    } else sync();
  };
  const f = mgAssetFields(model, upload);
  const sync = () => part.update(model);
  f.file.addEventListener("change", () => {
    state.file = f.file.files?.[0] || null;
    state.readError = "";
    state.touched.add("file");
    sync();
  });
  f.url.addEventListener("blur", () => {
    if (!f.url.value.trim()) return;
    state.touched.add("url");
    sync();
  });
  const uploadBtn = mgButton({ label: "Upload for review", kind: "primary", action: "upload", onClick: upload });
  const refresh = mgButton({
    label: "Check status",
    action: "refresh",
    title: "List the assets the history knows and check their review",
    onClick: () => model.send({ action: "refresh" }),
  });
  const hint = mgEl("span", { class: "mg-hint", "aria-live": "polite" });
  const formError = mgEl("div", { class: "mg-error", "aria-live": "polite" });
  const status = mgEl("span", { class: "mg-asset-status mg-muted", role: "status" });
  const part = {
    el: mgEl("div", {},
      mgEl("div", { class: "mg-form mg-asset-form" }, f.libraryRow, f.fileRow, f.urlRow, f.typeRow, f.nameRow),
      formError,
      mgEl("div", { class: "mg-asset-submit" },
        mgEl("div", { class: "mg-row mg-asset-actions" }, uploadBtn, refresh, hint), status)),
    traits: ["values", "problems", "hint", "can_submit", "demo", "hosting_note", "status_text", "busy"],
    update() {
      const v = mgAssetValues(model);
      const demo = Boolean(model.get("demo"));
      const libraries = mgAssetLibraries(model);
      const lib = libraries.find((l) => l.value === v.library) || libraries[0];
      f.library.mgSet(v.library);
      if (f.type.dataset.lib !== lib.value) {
        mgReplace(f.type, lib.types.map((t) => mgEl("option", { value: t, text: t })));
        f.type.dataset.lib = lib.value;
      }
      state.fileError = state.readError || mgAssetFileError(state.file, lib);
      const active = f.url.getRootNode().activeElement;
      if (f.url.value !== v.url && active !== f.url) f.url.value = v.url;
      if (f.name.value !== v.name && active !== f.name) f.name.value = v.name;
      f.nameRow.hidden = !lib.names;
      f.file.disabled = !demo;
      const hosted = "Demo mode: the built-in service hosts the file (up to 8 MB).";
      f.fileRow.mgSetHelp(demo ? hosted : model.get("hosting_note"));
      mgAssetShowFile(f, state, lib, v, sync);
      mgAssetShowProblems(model, f, state, formError);
      const ready = state.file ? demo && !state.fileError : Boolean(model.get("can_submit"));
      const busy = state.sending || Boolean(model.get("busy"));
      uploadBtn.disabled = !ready || busy;
      uploadBtn.textContent = busy ? "Uploading…" : "Upload for review";
      hint.textContent = mgAssetHint(model, state, v);
      status.textContent = model.get("status_text") || "";
    },
  };
  return part;
}

/** Delete, then "Yes, delete" / Cancel under the row while it asks. */
function mgAssetDelete(model, row, title) {
  const send = (action) => () => model.send({ action, id: row.id });
  const verb = row.delete_label.toLowerCase();
  const del = mgButton({
    label: row.delete_label,
    kind: "ghost",
    action: "delete",
    ariaLabel: `${row.delete_label} ${title}`,
    disabled: row.confirming,
    onClick: send("delete"),
  });
  del.classList.add("mg-asset__delete");
  if (!row.confirming) return { del, confirm: null };
  const confirm = mgEl("div", { class: "mg-asset__confirm", role: "group", "aria-label": `Confirm: ${verb} ${title}` },
    mgEl("span", { class: "mg-asset__question", text: row.delete_question }),
    mgButton({ label: `Yes, ${verb}`, kind: "danger", action: "confirm-delete", onClick: send("confirm-delete") }),
    mgButton({ label: "Cancel", action: "cancel-delete", onClick: send("cancel-delete") }));
  return { del, confirm };
}

/** One asset: preview, status, name, asset://id with Copy, the URL, why it failed, Delete. */
function mgAssetRow(model, row) {
  const alt = `Preview of ${row.name || row.id}`;
  const media = row.thumb
    ? mgEl("img", { class: "mg-asset__thumb", src: row.thumb, alt, loading: "lazy" })
    : mgEl("div", { class: "mg-asset__thumb mg-asset__thumb--icon", title: row.asset_type },
      mgAssetIcon(row.asset_type));
  const title = row.name || (row.refused ? "Refused upload" : row.id);
  const idLine = row.refused ? null : mgEl("code", { class: "mg-asset__id", title: row.uri, text: row.uri });
  const url = row.url ? mgEl("span", { class: "mg-asset__url mg-muted", title: row.url, text: row.url }) : null;
  const failed = row.status === "Failed" && row.reason;
  const reason = failed ? mgEl("p", { class: "mg-asset__reason", text: row.reason }) : null;
  let copy = null;
  if (!row.refused && row.uri) {
    copy = mgCopy(row.uri, "Copy asset://id");
    copy.dataset.mgAction = "copy-id";
    copy.setAttribute("aria-label", `Copy asset://id of ${title}`);
    copy.addEventListener("click", () => model.send({ action: "copied", id: row.id }));
  }
  const { del, confirm } = mgAssetDelete(model, row, title);
  return mgEl("li", { class: "mg-asset", "data-status": row.status, "data-id": row.id },
    media,
    mgEl("div", { class: "mg-asset__main" },
      mgEl("div", { class: "mg-asset__top" },
        mgBadge(row.status),
        mgEl("span", { class: "mg-asset__title", title, text: title }),
        mgChip(`${row.library_title} · ${row.asset_type}`)),
      idLine,
      url,
      reason),
    mgEl("div", { class: "mg-asset__actions" }, copy, del),
    confirm);
}

/** After a redraw, the focus goes back to the same button of the same asset. */
function mgAssetRefocus(list, rows, focusId, focusAction) {
  const item = [...list.children].find((li) => li.dataset.id === focusId);
  const row = rows.find((r) => r.id === focusId);
  if (!item || !row) return;
  let action = focusAction === "confirm-delete" || focusAction === "cancel-delete" ? "delete" : focusAction;
  if (row.confirming) action = "confirm-delete";
  item.querySelector(`[data-mg-action="${action}"]`)?.focus();
}

/** "Your assets": the list, or how to start when it is empty. */
function mgAssetList(model) {
  const list = mgEl("ul", { class: "mg-asset-list", "aria-label": "Assets" });
  const empty = mgEl("p", {
    class: "mg-asset-empty mg-muted",
    text: "No assets yet. Upload a file or paste a URL; once its review says Active, copy its asset://id "
      + "into a reference field.",
  });
  const heading = mgEl("h3", { class: "mg-asset-heading", text: "Your assets" });
  return {
    el: mgEl("div", {}, heading, empty, list),
    traits: ["rows"],
    update() {
      const active = list.getRootNode().activeElement;
      const focusId = active?.closest?.(".mg-asset")?.dataset.id;
      const rows = model.get("rows") || [];
      mgReplace(list, rows.map((row) => mgAssetRow(model, row)));
      empty.hidden = rows.length > 0;
      heading.hidden = list.hidden = rows.length === 0;
      if (focusId) mgAssetRefocus(list, rows, focusId, active.dataset?.mgAction);
    },
  };
}

/** The heading with the mode, and what the review is for. */
function mgAssetHead() {
  const mode = mgEl("span", { class: "mg-asset-mode mg-muted" });
  const intro = "Reference media with faces or avatars must pass the library's review before a generation "
    + "can use it as asset://id.";
  return {
    el: mgEl("div", {},
      mgEl("div", { class: "mg-asset-head" }, mgEl("h2", { text: "Assets" }), mode),
      mgEl("p", { class: "mg-muted mg-asset-intro", text: intro })),
    traits: ["mode", "show_mode"],
    update(model) {
      mode.textContent = model.get("show_mode") ? model.get("mode") : "";
    },
  };
}

function render({ model, el }) {
  return mgCompose(model, el, "assets", [mgNoticePart(model), mgAssetHead(), mgAssetForm(model), mgAssetList(model)]);
}

export default { render };
