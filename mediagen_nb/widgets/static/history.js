// History panel (after the kit): a page of the history as a table (kit_table.js) that scrolls
// inside its own focusable region and stacks its rows as cards in a narrow panel; filters,
// "this session / all", paging, reopen a row (click, Enter or Space on a focused row), clamped
// long text with expand, export and browser download. Python owns the state: each component
// below renders some of `values`, `rows`, `page`, `pages`, `total`, `everything`, `options`,
// `export_note`, `export_dir`, `export_file`, `can_reopen` and sends {"action": ...} messages.

const MG_HISTORY_KINDS = [
  { value: "", label: "All kinds" },
  { value: "task", label: "Images & videos" },
  { value: "chat", label: "Chat" },
  { value: "asset", label: "Assets" },
];

/** The film-frame "play" badge of a video row: solid when cached locally, outlined when not. */
function mgVideoBadge(cached) {
  const ns = "http://www.w3.org/2000/svg";
  const make = (tag, attrs) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  const label = cached ? "Video (in the local media cache)" : "Video (not in the local media cache)";
  const svg = make("svg", {
    class: `mg-vbadge ${cached ? "mg-vbadge--cached" : "mg-vbadge--missing"}`,
    viewBox: "0 0 64 40",
    width: "56",
    height: "35",
    role: "img",
    "aria-label": label,
    "data-cached": cached ? "true" : "false",
  });
  const title = make("title", {});
  title.textContent = label;
  svg.append(
    title,
    make("rect", { class: "mg-vbadge__frame", x: "1", y: "1", width: "62", height: "38", rx: "5" }),
    make("path", { class: "mg-vbadge__holes", d: "M6 6h4v3h-4zM6 31h4v3h-4zM54 6h4v3h-4zM54 31h4v3h-4z" }),
    make("circle", { class: "mg-vbadge__disc", cx: "32", cy: "20", r: "11" }),
    make("path", { class: "mg-vbadge__play", d: "M28.5 14v12l10-6z" }),
  );
  return svg;
}

/**
 * Text clamped to two lines, with a More/Less button when it is long. `expanded` (a Set) keeps
 * which texts are open across re-renders, under `key`.
 */
function mgClamp(text, cls, key, expanded, limit = 60) {
  const body = mgEl("span", { class: `mg-clamp ${cls}`, title: text, text });
  if (text.length <= limit) return body;
  let toggle = null;
  const show = () => {
    const open = expanded.has(key);
    body.classList.toggle("mg-clamp--open", open);
    toggle.textContent = open ? "Less" : "More";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  };
  toggle = mgButton({
    label: "More",
    kind: "ghost",
    action: "expand",
    onClick: (event) => {
      event.stopPropagation();
      if (expanded.has(key)) expanded.delete(key);
      else expanded.add(key);
      show();
    },
  });
  toggle.classList.add("mg-clamp__toggle");
  show();
  toggle.addEventListener("keydown", (event) => event.stopPropagation());
  return mgEl("div", { class: "mg-clamp-box" }, body, toggle);
}


/** The current filters, with their defaults. */
function mgHistValues(model) {
  const base = { scope: "session", kind: "", status: "", model: "", text: "", sweep: "" };
  return { ...base, ...(model.get("values") || {}) };
}

function mgHistSet(model, changes) {
  model.set("values", { ...mgHistValues(model), ...changes });
  model.save_changes();
}

/** A filter's label above its control. */
function mgHistLabelled(text, control) {
  control.id = mgId("mg-hist");
  return mgEl("div", { class: "mg-history-filter" },
    mgEl("label", { for: control.id, class: "mg-history-filter__label", text }), control);
}

/** Fill a filter <select> with "all" and `options` [{value, label, title}], keeping `current`. */
function mgHistFill(select, options, allLabel, current) {
  const wanted = [{ value: "", label: allLabel }, ...(options || [])];
  if (current && !wanted.some((o) => o.value === current)) wanted.push({ value: current, label: current });
  const key = JSON.stringify(wanted);
  if (select.dataset.key !== key) {
    mgReplace(select, wanted.map((o) => mgEl("option", { value: o.value, title: o.title, text: o.label })));
    select.dataset.key = key;
  }
  select.value = current;
}

/** The heading and the "Rows 1–25 of 40 · this session" summary. */
function mgHistHead() {
  const summary = mgEl("span", { class: "mg-history-summary mg-muted", role: "status" });
  return {
    el: mgEl("div", { class: "mg-history-head" }, mgEl("h2", { text: "History" }), summary),
    traits: ["values", "total", "page", "page_size", "everything"],
    update(model) {
      const total = model.get("total") || 0;
      const size = model.get("page_size") || 25;
      const first = model.get("page") * size + 1;
      const where = mgHistValues(model).scope === "session" ? "this session" : "all sessions";
      const last = Math.min(total, first - 1 + size);
      summary.textContent = total
        ? `Rows ${first}–${last} of ${total} · ${where} · ${model.get("everything")} in the history`
        : `${model.get("everything") || 0} rows in the history`;
    },
  };
}

/** Show (this session / all), kind, status, model, search and Refresh. */
function mgHistFilters(model) {
  const set = (changes) => mgHistSet(model, changes);
  const scope = mgSegmented({
    name: "scope",
    label: "Show",
    options: [{ value: "session", label: "This session" }, { value: "all", label: "All" }],
    value: mgHistValues(model).scope,
    onChange: (v) => set({ scope: v }),
  });
  const kind = mgSelect({ name: "kind", options: MG_HISTORY_KINDS, onChange: (v) => set({ kind: v }) });
  const status = mgSelect({ name: "status", onChange: (v) => set({ status: v }) });
  const modelSel = mgSelect({ name: "model", onChange: (v) => set({ model: v }) });
  const sweep = mgSelect({ name: "sweep", onChange: (v) => set({ sweep: v }) });
  let typing = null;
  const search = mgEl("input", { type: "search", name: "text", placeholder: "prompt, answer, id, error" });
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => set({ text: search.value }), 250);
  });
  const refresh = mgButton({ label: "Refresh", action: "refresh", onClick: () => model.send({ action: "refresh" }) });
  const el = mgEl("div", { class: "mg-history-filters" },
    mgEl("div", { class: "mg-history-filter" },
      mgEl("span", { class: "mg-history-filter__label", "aria-hidden": "true", text: "Show" }), scope),
    mgHistLabelled("Kind", kind),
    mgHistLabelled("Status", status),
    mgHistLabelled("Model", modelSel),
    mgHistLabelled("Comparison", sweep),
    mgHistLabelled("Search", search),
    mgEl("div", { class: "mg-history-filter mg-history-filter--end" }, refresh));
  return {
    el,
    traits: ["values", "options"],
    update() {
      const v = mgHistValues(model);
      const opts = model.get("options") || {};
      mgHistFill(status, opts.status, "All statuses", v.status);
      mgHistFill(modelSel, opts.model, "All models", v.model);
      mgHistFill(sweep, opts.sweep, "All requests", v.sweep);
      kind.value = v.kind;
      scope.mgSet(v.scope);
      if (el.getRootNode().activeElement !== search && search.value !== v.text) search.value = v.text;
    },
    dispose: () => clearTimeout(typing),
  };
}

/** What a click on a row does, or why the table is empty. */
function mgHistHint() {
  const hint = mgEl("p", { class: "mg-hint mg-history-hint" });
  const empty = mgEl("p", { class: "mg-history-empty mg-muted" });
  return {
    el: mgEl("div", {}, hint, empty),
    traits: ["rows", "can_reopen", "total", "values"],
    update(model) {
      const v = mgHistValues(model);
      const total = model.get("total") || 0;
      const open = model.get("can_reopen") && (model.get("rows") || []).some((r) => r.openable);
      hint.textContent = total && open
        ? "Click an image, video or chat row (or press Enter on it) to reopen its request in its panel."
        : "";
      hint.hidden = !hint.textContent;
      let text = "No history yet: every image, video, chat turn and asset you make is listed here.";
      if (v.kind || v.status || v.model || v.text) text = "No rows match these filters.";
      else if (v.scope === "session") {
        text = "Nothing in this session yet: generate something, or choose All to see earlier sessions.";
      }
      empty.textContent = text;
      empty.hidden = total > 0;
    },
  };
}

/** "made from <id>, <id>": each parent a link that shows that row (all sessions). */
function mgHistParents(model, row) {
  if (!row.parents?.length) return null;
  const links = row.parents.map((id) => {
    const link = mgEl("button", { type: "button", class: "mg-history-parent", text: id, title: `Show ${id}` });
    link.addEventListener("click", () => mgHistSet(model, { scope: "all", kind: "", status: "", model: "", text: id }));
    return link;
  });
  const parts = links.flatMap((link, i) => (i ? [", ", link] : [link]));
  return mgEl("span", { class: "mg-history-made" }, "made from ", ...parts);
}

/** The cells of one row, column by column. */
function mgHistColumns(model, expanded) {
  const clamp = (text, cls, key) => (text ? mgClamp(text, cls, key, expanded) : null);
  const prompt = (row) => {
    const made = mgHistParents(model, row);
    const shown = clamp(row.prompt, "mg-history-prompt", `${row.id}:prompt`);
    return made ? mgEl("div", {}, shown, made) : shown;
  };
  const preview = (row) => {
    if (row.media === "image" && row.thumb) return mgEl("img", { src: row.thumb, alt: "", class: "mg-history-thumb" });
    return row.media === "video" ? mgVideoBadge(row.cached) : null;
  };
  const modelName = (row) => (row.family ? `${row.model} (${row.family})` : row.model);
  return [
    { label: "Preview", hideLabel: true, cls: "mg-col-0", cell: preview },
    { label: "When", cls: "mg-col-1 mg-nowrap", cell: (row) => mgEl("span", { title: row.time_full, text: row.time }) },
    { label: "Kind", cls: "mg-col-2 mg-nowrap", cell: (row) => row.kind_label },
    { label: "Model", cls: "mg-col-3", cell: (row) => mgEl("span", { title: modelName(row), text: row.model_title }) },
    { label: "Prompt", cls: "mg-col-4", cell: prompt },
    { label: "Status", cls: "mg-col-5", cell: (row) => (row.status ? mgBadge(row.status, row.status_label) : null) },
    { label: "Took", cls: "mg-col-6 mg-nowrap", cell: (row) => row.elapsed || null },
    { label: "Error", cls: "mg-col-7", cell: (row) => clamp(row.error, "mg-history-error", `${row.id}:error`) },
    { label: "Id", cls: "mg-col-8", cell: (row) => mgEl("code", { text: row.id }) },
  ];
}

/** The page of rows; openable rows reopen their request in its panel. */
function mgHistTable(model) {
  let clickable = false;
  const table = mgTable({
    label: "History rows (scrolls)",
    cls: "mg-history-table",
    columns: mgHistColumns(model, new Set()),
    canOpen: (row) => clickable && row.openable,
    open: (row) => model.send({ action: "reopen", id: row.id }),
    rowAttrs: (row) => {
      const open = clickable && row.openable;
      const what = row.prompt ? `: ${row.prompt.slice(0, 60)}` : "";
      return {
        "data-row-id": row.id,
        "data-row-key": row.id,
        "data-kind": row.kind,
        "data-status": row.status,
        class: "mg-history-row",
        title: open ? "Reopen this request in its panel (click or Enter)" : undefined,
        "aria-label": open ? `Reopen ${row.kind_label.toLowerCase()} ${row.model_title}${what}` : undefined,
      };
    },
  });
  table.el.classList.add("mg-history-scroll");
  return {
    el: table.el,
    traits: ["rows", "can_reopen", "total"],
    update() {
      clickable = Boolean(model.get("can_reopen"));
      table.update(model.get("rows") || []);
      table.el.hidden = !model.get("total");
    },
  };
}

/** Newer / Older paging. */
function mgHistPager(model) {
  const prev = mgButton({ label: "‹ Newer", action: "prev", ariaLabel: "Previous page (newer rows)" });
  const next = mgButton({ label: "Older ›", action: "next", ariaLabel: "Next page (older rows)" });
  prev.addEventListener("click", () => model.send({ action: "prev" }));
  next.addEventListener("click", () => model.send({ action: "next" }));
  const text = mgEl("span", { class: "mg-history-page", "aria-live": "polite" });
  const el = mgEl("div", { class: "mg-row mg-history-pager" }, prev, text, next);
  return {
    el,
    traits: ["page", "pages"],
    update() {
      const page = model.get("page") || 0;
      const pages = model.get("pages") || 1;
      el.hidden = pages <= 1;
      prev.disabled = page <= 0;
      next.disabled = page + 1 >= pages;
      text.textContent = `Page ${page + 1} of ${pages}`;
    },
  };
}

/** Save the matching rows as CSV in the exports folder (not in the browser: its folders live
 * in the tab), or download them through the browser. */
function mgHistExport(model) {
  const save = mgButton({ label: "Save CSV", action: "export" });
  const download = mgButton({
    label: "Download CSV",
    action: "download",
    title: "Your browser saves the matching rows in its downloads folder",
  });
  save.addEventListener("click", () => model.send({ action: "export" }));
  download.addEventListener("click", () => model.send({ action: "download" }));
  const note = mgEl("span", { class: "mg-history-note mg-muted", role: "status" });
  return {
    el: mgEl("div", { class: "mg-row mg-history-export" }, save, download, note),
    traits: ["total", "export_note", "export_dir", "export_file", "browser"],
    update() {
      save.hidden = Boolean(model.get("browser"));
      save.title = `Write the matching rows (every page) as CSV into ${model.get("export_dir")}`;
      save.disabled = download.disabled = !model.get("total");
      note.textContent = model.get("export_note") || "";
      const file = model.get("export_file") || "";
      if (file) note.title = file;
      else note.removeAttribute("title");
    },
    onMessage(msg, buffers) {
      if (msg?.event !== "download" || !buffers?.length) return;
      const url = mgBlobUrl(buffers[0], msg.mime || "text/csv");
      if (!url) return;
      mgDownload(url, msg.name || "history.csv");
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    },
  };
}

/** Export (the whole history with its pictures, as one file), Import (a file you pick), and in
 * the browser what its storage keeps, with Clear. While a write is not yet in the browser's
 * storage (`unsaved`), leaving the page asks first. */
function mgHistKeep(model) {
  const exporter = mgButton({ label: "Export", action: "export-history",
    onClick: () => model.send({ action: "export-history" }) });
  const page = mgButton({
    label: "Export this session",
    action: "export-session",
    title: "One web page with this session's pictures and videos inside, each with its prompt and code",
    onClick: () => model.send({ action: "export-session" }),
  });
  const picker = mgEl("input", { type: "file", accept: ".json,application/json", name: "import-file", hidden: true });
  const importer = mgButton({ label: "Import", action: "import-history", onClick: () => picker.click() });
  picker.addEventListener("change", async () => {
    const file = picker.files?.[0];
    if (!file) return;
    model.send({ action: "import-history", name: file.name }, undefined, [await file.arrayBuffer()]);
    picker.value = "";
  });
  const clear = mgButton({ label: "Clear", kind: "ghost", action: "clear-history", onClick: () => {
    const question = "Remove every row and picture this browser keeps for the playground?";
    if (confirm(question)) model.send({ action: "clear-history" });
  } });
  const storage = mgEl("span", { class: "mg-history-storage mg-muted", role: "status" });
  const note = mgEl("span", { class: "mg-history-keep-note mg-muted", role: "status" });
  const ask = (event) => {
    if (!model.get("unsaved")) return;
    event.preventDefault();
    event.returnValue = "";
  };
  addEventListener("beforeunload", ask);
  return {
    el: mgEl("div", { class: "mg-row mg-history-keep" }, exporter, importer, page, picker, storage, clear, note),
    traits: ["storage", "keep_note", "browser", "unsaved"],
    update() {
      exporter.title = model.get("browser")
        ? "Download the whole history, pictures included, as one file"
        : "Write the whole history, pictures included, into the exports folder";
      importer.title = "Add the rows of an exported history file";
      storage.textContent = model.get("storage") || "";
      storage.hidden = clear.hidden = !model.get("storage");
      note.textContent = model.get("keep_note") || "";
      storage.dataset.unsaved = model.get("unsaved") ? "1" : "0";
    },
    dispose: () => removeEventListener("beforeunload", ask),
  };
}

function render({ model, el }) {
  return mgCompose(model, el, "history", [
    mgNoticePart(model),
    mgHistHead(),
    mgHistFilters(model),
    mgHistHint(),
    mgHistTable(model),
    mgGroup({ class: "mg-history-foot" },
      mgHistPager(model), mgEl("span", { class: "mg-spacer" }), mgHistExport(model)),
    mgHistKeep(model),
  ]);
}

export default { render };
