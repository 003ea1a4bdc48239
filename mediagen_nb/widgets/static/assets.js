// Assets panel (after kit.js): upload reference media by file or URL to either asset library,
// watch the review, copy asset://id, delete with confirmation. Python owns the state: this
// module renders the traits `values`, `problems`, `hint`, `can_submit`, `demo`,
// `hosting_note`, `rows`, `status_text`, `busy`, and sends {"action": ...} messages.

const MG_ASSET_MAX_FILE = 8 * 1024 * 1024; // one comm message; Jupyter drops websocket messages above 10 MiB
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

function render({ model, el }) {
  const touched = new Set();
  let file = null;
  let fileError = "";
  let sending = false;
  const libraries = model.get("libraries"); // [{value, label, types, names}] from the catalog
  const values = () => ({ library: libraries[0].value, asset_type: "Image", name: "", url: "", ...(model.get("values") || {}) });
  const setValues = (changes) => {
    model.set("values", { ...values(), ...changes });
    model.save_changes();
  };

  // --- form ---------------------------------------------------------------------------
  const library = mgSegmented({
    name: "library",
    label: "Library",
    options: libraries.map(({ value, label }) => ({ value, label })),
    value: values().library,
    onChange: (v) => {
      const lib = libraries.find((l) => l.value === v);
      const type = lib.types.includes(values().asset_type) ? values().asset_type : lib.types[0];
      setValues({ library: v, asset_type: type });
    },
  });
  const libraryRow = mgField({ label: "Library", control: library, help: "Where the asset is reviewed and kept." });

  const fileInput = mgEl("input", {
    type: "file",
    name: "asset-file",
    accept: MG_ASSET_ACCEPT,
    class: "mg-asset-file",
    onChange: () => {
      file = fileInput.files && fileInput.files[0] ? fileInput.files[0] : null;
      touched.add("file");
      sync();
    },
  });
  const fileChip = mgEl("div", { class: "mg-row mg-asset-chosen" });
  const fileRow = mgField({ label: "File", control: fileInput });
  fileRow.querySelector(".mg-field__control").insertBefore(fileChip, fileInput.nextSibling);

  const urlInput = mgEl("input", {
    type: "url",
    name: "asset-url",
    placeholder: "https://example.com/photo.png",
    autocomplete: "off",
    spellcheck: "false",
    onInput: () => setValues({ url: urlInput.value }),
    onBlur: () => { if (urlInput.value.trim()) { touched.add("url"); sync(); } },
    onKeydown: (event) => { if (event.key === "Enter") { event.preventDefault(); upload(); } },
  });
  const urlRow = mgField({ label: "or URL", control: urlInput, help: "A public link the library can fetch.", apiName: "url" });

  const typeSelect = mgSelect({
    name: "asset-type",
    options: [],
    onChange: (v) => setValues({ asset_type: v }),
  });
  const typeRow = mgField({ label: "Type", control: typeSelect, apiName: "assetType" });

  const nameInput = mgEl("input", {
    type: "text",
    name: "asset-name",
    placeholder: "optional label, e.g. hero portrait",
    onInput: () => setValues({ name: nameInput.value }),
  });
  const nameRow = mgField({ label: "Name", control: nameInput, help: "Seedance 2.0 keeps a label with the asset.", apiName: "name" });

  const uploadBtn = mgButton({ label: "Upload for review", kind: "primary", action: "upload", onClick: () => upload() });
  const refreshBtn = mgButton({ label: "Check status", kind: "secondary", action: "refresh", title: "List the assets the history knows and check their review", onClick: () => model.send({ action: "refresh" }) });
  const hint = mgEl("span", { class: "mg-hint", "aria-live": "polite" });
  const formError = mgEl("div", { class: "mg-error", "aria-live": "polite" });
  const actions = mgEl("div", { class: "mg-row mg-asset-actions" }, uploadBtn, refreshBtn, hint);
  const form = mgEl("div", { class: "mg-form mg-asset-form" }, libraryRow, fileRow, urlRow, typeRow, nameRow);
  const status = mgEl("span", { class: "mg-asset-status mg-muted", role: "status" });

  // --- list ---------------------------------------------------------------------------
  const list = mgEl("ul", { class: "mg-asset-list", "aria-label": "Assets" });
  const empty = mgEl("p", { class: "mg-asset-empty mg-muted", text: "No assets yet. Upload a file or paste a URL; once its review says Active, copy its asset://id into a reference field." });
  const heading = mgEl("h3", { class: "mg-asset-heading", text: "Your assets" });

  const root = mgPanel(el, "assets",
    mgNotice(model),
    mgEl("div", { class: "mg-asset-head" }, mgEl("h2", { text: "Assets" }), mgEl("span", { class: "mg-asset-mode mg-muted" })),
    mgEl("p", { class: "mg-muted mg-asset-intro", text: "Reference media with faces or avatars must pass the library's review before a generation can use it as asset://id." }),
    form,
    formError,
    mgEl("div", { class: "mg-asset-submit" }, actions, status),
    heading,
    empty,
    list,
  );

  function upload() {
    touched.add("url");
    touched.add("file");
    touched.add("submit");
    if (file) {
      if (!model.get("demo") || fileError) { sync(); return; }
      const chosen = file;
      sending = true;
      sync();
      chosen.arrayBuffer().then((buffer) => {
        model.send({ action: "upload", name: chosen.name, type: chosen.type || "" }, undefined, [buffer]);
        file = null;
        fileInput.value = "";
        sending = false;
        touched.clear();
        sync();
      }, () => {
        sending = false;
        fileError = "File: could not be read by the browser";
        sync();
      });
      return;
    }
    if (!model.get("can_submit")) { sync(); return; }
    model.send({ action: "upload" });
    touched.clear();
  }

  function syncForm() {
    const v = values();
    const demo = Boolean(model.get("demo"));
    const lib = libraries.find((l) => l.value === v.library) || libraries[0];
    library.mgSet(v.library);
    if (typeSelect.dataset.lib !== lib.value) {
      mgReplace(typeSelect, lib.types.map((t) => mgEl("option", { value: t, text: t })));
      typeSelect.dataset.lib = lib.value;
    }
    fileError = "";
    if (file) {
      const kind = mgAssetTypeOfFile(file);
      if (file.size > MG_ASSET_MAX_FILE) fileError = `File: ${mgAssetSize(file.size)} is over the 8 MB limit`;
      else if (!kind || !lib.types.includes(kind)) fileError = `File: ${lib.label} takes ${lib.types.join(", ").toLowerCase()} files`;
      typeSelect.value = kind && lib.types.includes(kind) ? kind : v.asset_type;
      typeSelect.disabled = true;
    } else {
      typeSelect.value = v.asset_type;
      typeSelect.disabled = false;
    }
    if (urlInput.value !== v.url && root.getRootNode().activeElement !== urlInput) urlInput.value = v.url;
    if (nameInput.value !== v.name && root.getRootNode().activeElement !== nameInput) nameInput.value = v.name;
    nameRow.hidden = !lib.names;
    fileInput.disabled = !demo;
    fileRow.mgSetHelp(demo ? "Demo mode: the built-in service hosts the file (up to 8 MB)." : model.get("hosting_note"));
    const clear = () => { file = null; fileInput.value = ""; sync(); fileInput.focus(); };
    let chip = null;
    if (file) {
      chip = mgChip(`${file.type || "unknown type"} · ${mgAssetSize(file.size)}`, fileError ? "error" : "accent", clear);
      chip.querySelector(".mg-chip__remove").setAttribute("aria-label", `Remove ${file.name}`);
    }
    mgReplace(fileChip, chip);
    urlInput.disabled = Boolean(file);

    const problems = model.get("problems") || [];
    const urlProblem = problems.find((p) => p.field.startsWith("URL"));
    urlRow.mgSetError(!file && touched.has("url") && urlProblem ? `${urlProblem.field}: ${urlProblem.message}` : "");
    fileRow.mgSetError(file && fileError ? fileError : "");
    const other = problems.filter((p) => !p.field.startsWith("URL"));
    formError.textContent = !file && touched.has("submit") && other.length ? other.map((p) => `${p.field}: ${p.message}`).join("; ") : "";
    formError.hidden = !formError.textContent;

    const ready = file ? demo && !fileError : Boolean(model.get("can_submit"));
    const busy = sending || Boolean(model.get("busy"));
    uploadBtn.disabled = !ready || busy;
    uploadBtn.textContent = busy ? "Uploading…" : "Upload for review";
    let text = "";
    if (busy) text = "Sending…";
    else if (file) text = fileError ? "" : `Ready: ${file.name}`;
    else if (!v.url.trim()) text = model.get("hint");
    else if (!model.get("can_submit") && !touched.has("url")) text = "Check the URL";
    hint.textContent = text;
    root.querySelector(".mg-asset-mode").textContent = model.get("mode") || "";
    status.textContent = model.get("status_text") || "";
  }

  function rowView(row) {
    const failed = row.status === "Failed";
    const media = row.thumb
      ? mgEl("img", { class: "mg-asset__thumb", src: row.thumb, alt: `Preview of ${row.name || row.id}`, loading: "lazy" })
      : mgEl("div", { class: "mg-asset__thumb mg-asset__thumb--icon", title: row.asset_type }, mgAssetIcon(row.asset_type));
    const title = row.name || (row.refused ? "Refused upload" : row.id);
    const idLine = row.refused
      ? null
      : mgEl("code", { class: "mg-asset__id", title: row.uri, text: row.uri });
    const url = row.url ? mgEl("span", { class: "mg-asset__url mg-muted", title: row.url, text: row.url }) : null;
    const reason = failed && row.reason ? mgEl("p", { class: "mg-asset__reason", text: row.reason }) : null;
    let copy = null;
    if (!row.refused && row.uri) {
      copy = mgCopy(row.uri, "Copy asset://id");
      copy.dataset.mgAction = "copy-id";
      copy.setAttribute("aria-label", `Copy asset://id of ${title}`);
      copy.addEventListener("click", () => model.send({ action: "copied", id: row.id }));
    }
    const del = mgButton({
      label: row.delete_label,
      kind: "ghost",
      action: "delete",
      ariaLabel: `${row.delete_label} ${title}`,
      disabled: row.confirming,
      onClick: () => model.send({ action: "delete", id: row.id }),
    });
    del.classList.add("mg-asset__delete");
    const confirm = row.confirming
      ? mgEl("div", { class: "mg-asset__confirm", role: "group", "aria-label": `Confirm: ${row.delete_label.toLowerCase()} ${title}` },
        mgEl("span", { class: "mg-asset__question", text: row.delete_question }),
        mgButton({ label: `Yes, ${row.delete_label.toLowerCase()}`, kind: "danger", action: "confirm-delete", onClick: () => model.send({ action: "confirm-delete", id: row.id }) }),
        mgButton({ label: "Cancel", kind: "secondary", action: "cancel-delete", onClick: () => model.send({ action: "cancel-delete", id: row.id }) }))
      : null;
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

  function syncRows() {
    const active = root.getRootNode().activeElement;
    const focusId = active && active.closest && active.closest(".mg-asset") ? active.closest(".mg-asset").dataset.id : null;
    const focusAction = active && active.dataset ? active.dataset.mgAction : null;
    const rows = model.get("rows") || [];
    mgReplace(list, rows.map(rowView));
    empty.hidden = rows.length > 0;
    heading.hidden = rows.length === 0;
    list.hidden = rows.length === 0;
    if (focusId) {
      const item = [...list.children].find((li) => li.dataset.id === focusId);
      const row = rows.find((r) => r.id === focusId);
      let target = null;
      if (item && row && row.confirming) target = item.querySelector('[data-mg-action="confirm-delete"]');
      else if (item) target = item.querySelector(`[data-mg-action="${focusAction === "confirm-delete" || focusAction === "cancel-delete" ? "delete" : focusAction}"]`);
      if (target) target.focus();
    }
  }

  function sync() { syncForm(); }
  const names = ["values", "problems", "hint", "can_submit", "demo", "hosting_note", "status_text", "busy", "mode"];
  for (const n of names) model.on(`change:${n}`, sync);
  model.on("change:rows", syncRows);
  sync();
  syncRows();
  root.dataset.mgReady = "1";
  return () => {
    for (const n of names) model.off(`change:${n}`, sync);
    model.off("change:rows", syncRows);
  };
}

export default { render };
