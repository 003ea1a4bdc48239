// History panel (after kit.js): a page of the history as a table that scrolls inside its own
// focusable region; filters, "this session / all", paging, reopen a row (click, Enter or
// Space on a focused row), clamped long text with expand, export and browser download.
// Python owns the state: this module renders `values`, `rows`, `page`, `pages`, `total`,
// `everything`, `options`, `export_note`, `can_reopen` and sends {"action": ...} messages.

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
  const toggle = mgButton({
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
  const show = () => {
    const open = expanded.has(key);
    body.classList.toggle("mg-clamp--open", open);
    toggle.textContent = open ? "Less" : "More";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  };
  toggle.classList.add("mg-clamp__toggle");
  show();
  toggle.addEventListener("keydown", (event) => event.stopPropagation());
  return mgEl("div", { class: "mg-clamp-box" }, body, toggle);
}

function render({ model, el }) {
  const values = () => ({ scope: "session", kind: "", status: "", model: "", text: "", ...(model.get("values") || {}) });
  const setValues = (changes) => {
    model.set("values", { ...values(), ...changes });
    model.save_changes();
  };

  const scope = mgSegmented({
    name: "scope",
    label: "Show",
    options: [{ value: "session", label: "This session" }, { value: "all", label: "All" }],
    value: values().scope,
    onChange: (v) => setValues({ scope: v }),
  });
  const kind = mgSelect({ name: "kind", options: MG_HISTORY_KINDS, value: values().kind, onChange: (v) => setValues({ kind: v }) });
  const status = mgSelect({ name: "status", options: [], onChange: (v) => setValues({ status: v }) });
  const modelSel = mgSelect({ name: "model", options: [], onChange: (v) => setValues({ model: v }) });
  let typing = null;
  const search = mgEl("input", {
    type: "search",
    name: "text",
    placeholder: "prompt, answer, id, error",
    onInput: () => {
      clearTimeout(typing);
      typing = setTimeout(() => setValues({ text: search.value }), 250);
    },
  });
  const labelled = (text, control) => {
    const id = mgId("mg-hist");
    control.id = id;
    return mgEl("div", { class: "mg-history-filter" }, mgEl("label", { for: id, class: "mg-history-filter__label", text }), control);
  };
  const refresh = mgButton({ label: "Refresh", kind: "secondary", action: "refresh", onClick: () => model.send({ action: "refresh" }) });
  const filters = mgEl("div", { class: "mg-history-filters" },
    mgEl("div", { class: "mg-history-filter" }, mgEl("span", { class: "mg-history-filter__label", "aria-hidden": "true", text: "Show" }), scope),
    labelled("Kind", kind),
    labelled("Status", status),
    labelled("Model", modelSel),
    labelled("Search", search),
    mgEl("div", { class: "mg-history-filter mg-history-filter--end" }, refresh),
  );

  const summary = mgEl("span", { class: "mg-history-summary mg-muted", role: "status" });
  const head = mgEl("tr", {}, ["Preview", "When", "Kind", "Model", "Prompt", "Status", "Took", "Error", "Id"].map((h, i) =>
    mgEl("th", { scope: "col", class: `mg-col-${i}` }, i === 0 ? mgEl("span", { class: "mg-sr-only", text: h }) : h)));
  const body = mgEl("tbody");
  const table = mgEl("table", { class: "mg-table mg-history-table" }, mgEl("thead", {}, head), body);
  const scroller = mgEl("div", { class: "mg-history-scroll", tabindex: "0", role: "region", "aria-label": "History rows (scrolls)" }, table);
  const empty = mgEl("p", { class: "mg-history-empty mg-muted" });

  const prev = mgButton({ label: "‹ Newer", kind: "secondary", action: "prev", ariaLabel: "Previous page (newer rows)", onClick: () => model.send({ action: "prev" }) });
  const next = mgButton({ label: "Older ›", kind: "secondary", action: "next", ariaLabel: "Next page (older rows)", onClick: () => model.send({ action: "next" }) });
  const pageText = mgEl("span", { class: "mg-history-page", "aria-live": "polite" });
  const pager = mgEl("div", { class: "mg-row mg-history-pager" }, prev, pageText, next);

  const exportBtn = mgButton({ label: "Export CSV", kind: "secondary", action: "export", title: "Write the matching rows to $MEDIAGEN_HOME/exports", onClick: () => model.send({ action: "export" }) });
  const downloadBtn = mgButton({ label: "Download CSV", kind: "secondary", action: "download", title: "Save the matching rows through the browser", onClick: () => model.send({ action: "download" }) });
  const note = mgEl("span", { class: "mg-history-note mg-muted", "aria-live": "polite" });
  const exportRow = mgEl("div", { class: "mg-row mg-history-export" }, exportBtn, downloadBtn, note);
  const hint = mgEl("p", { class: "mg-hint mg-history-hint" });

  const root = mgPanel(el, "history",
    mgNotice(model),
    mgEl("div", { class: "mg-history-head" }, mgEl("h2", { text: "History" }), summary),
    filters,
    hint,
    empty,
    scroller,
    mgEl("div", { class: "mg-history-foot" }, pager, mgEl("span", { class: "mg-spacer" }), exportRow),
  );

  const expanded = new Set();

  function reopen(row) {
    model.send({ action: "reopen", id: row.id });
  }

  function cell(cls, ...children) {
    return mgEl("td", { class: cls }, ...children);
  }

  function rowView(row, clickable) {
    let media = null;
    if (row.media === "image" && row.thumb) media = mgEl("img", { src: row.thumb, alt: "", class: "mg-history-thumb" });
    else if (row.media === "video") media = mgVideoBadge(row.cached);
    const what = row.prompt ? `: ${row.prompt.slice(0, 60)}` : "";
    const tr = mgEl("tr", {
      "data-row-id": row.id,
      "data-kind": row.kind,
      "data-status": row.status,
      class: clickable ? "mg-history-row mg-history-row--open" : "mg-history-row",
      tabindex: clickable ? "0" : undefined,
      title: clickable ? "Reopen this request in its panel (click or Enter)" : undefined,
      "aria-label": clickable ? `Reopen ${row.kind_label.toLowerCase()} ${row.model_title}${what}` : undefined,
    },
      cell("mg-col-0", media),
      cell("mg-col-1 mg-nowrap", mgEl("span", { title: row.time_full, text: row.time })),
      cell("mg-col-2 mg-nowrap", row.kind_label),
      cell("mg-col-3 mg-nowrap", mgEl("span", { title: row.family ? `${row.model} (${row.family})` : row.model, text: row.model_title })),
      cell("mg-col-4", row.prompt ? mgClamp(row.prompt, "mg-history-prompt", `${row.id}:prompt`, expanded) : null),
      cell("mg-col-5", row.status ? mgBadge(row.status) : null),
      cell("mg-col-6 mg-nowrap", row.elapsed),
      cell("mg-col-7", row.error ? mgClamp(row.error, "mg-history-error", `${row.id}:error`, expanded) : null),
      cell("mg-col-8 mg-nowrap", mgEl("code", { title: row.id, text: row.short_id })));
    if (clickable) {
      tr.addEventListener("click", (event) => {
        if (event.target.closest("button, a")) return;
        reopen(row);
      });
      tr.addEventListener("keydown", (event) => {
        if (event.target !== tr) return;
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); reopen(row); }
        else if (event.key === "ArrowDown" && tr.nextElementSibling) { event.preventDefault(); tr.nextElementSibling.focus(); }
        else if (event.key === "ArrowUp" && tr.previousElementSibling) { event.preventDefault(); tr.previousElementSibling.focus(); }
      });
    }
    return tr;
  }

  function syncOptions() {
    const v = values();
    const opts = model.get("options") || {};
    const fill = (select, list, allLabel, current) => {
      const wanted = ["", ...(list || [])];
      if (current && !wanted.includes(current)) wanted.push(current);
      const key = wanted.join("\n");
      if (select.dataset.key !== key) {
        mgReplace(select, wanted.map((x) => mgEl("option", { value: x, text: x || allLabel })));
        select.dataset.key = key;
      }
      select.value = current;
    };
    fill(status, opts.status, "All statuses", v.status);
    fill(modelSel, opts.model, "All models", v.model);
    kind.value = v.kind;
    scope.mgSet(v.scope);
    if (root.getRootNode().activeElement !== search && search.value !== v.text) search.value = v.text;
  }

  function syncRows() {
    const rows = model.get("rows") || [];
    const clickable = Boolean(model.get("can_reopen"));
    const active = root.getRootNode().activeElement;
    const focusId = active && active.dataset && active.dataset.rowId;
    mgReplace(body, rows.map((r) => rowView(r, clickable && r.openable)));
    if (focusId) {
      const again = [...body.children].find((tr) => tr.dataset.rowId === focusId);
      if (again && again.tabIndex === 0) again.focus();
    }
    sync();
  }

  function sync() {
    syncOptions();
    const v = values();
    const rows = model.get("rows") || [];
    const total = model.get("total") || 0;
    const page = model.get("page") || 0;
    const pages = model.get("pages") || 1;
    const size = model.get("page_size") || 25;
    const clickable = Boolean(model.get("can_reopen"));
    const where = v.scope === "session" ? "this session" : "all sessions";
    const first = total ? page * size + 1 : 0;
    const last = Math.min(total, (page + 1) * size);
    summary.textContent = total
      ? `Rows ${first}–${last} of ${total} · ${where} · ${model.get("everything")} in the history`
      : `${model.get("everything") || 0} rows in the history`;
    const filtered = v.kind || v.status || v.model || v.text;
    if (!total) {
      empty.textContent = filtered
        ? "No rows match these filters."
        : v.scope === "session"
          ? "Nothing in this session yet: generate something, or choose All to see earlier sessions."
          : "No history yet: every image, video, chat turn and asset you make is listed here.";
    }
    empty.hidden = total > 0;
    scroller.hidden = total === 0;
    pager.hidden = pages <= 1;
    prev.disabled = page <= 0;
    next.disabled = page + 1 >= pages;
    pageText.textContent = `Page ${page + 1} of ${pages}`;
    exportBtn.disabled = total === 0;
    downloadBtn.disabled = total === 0;
    note.textContent = model.get("export_note") || "";
    hint.textContent = total && clickable && rows.some((r) => r.openable) ? "Click a row (or press Enter on it) to reopen its request in its panel." : "";
    hint.hidden = !hint.textContent;
  }

  function onMessage(msg, buffers) {
    if (!msg || msg.event !== "download" || !buffers || !buffers.length) return;
    const url = mgBlobUrl(buffers[0], msg.mime || "text/csv");
    if (!url) return;
    mgDownload(url, msg.name || "history.csv");
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  const names = ["values", "page", "pages", "total", "everything", "options", "export_note", "page_size"];
  for (const n of names) model.on(`change:${n}`, sync);
  model.on("change:rows", syncRows);
  model.on("change:can_reopen", syncRows);
  model.on("msg:custom", onMessage);
  syncRows();
  root.dataset.mgReady = "1";
  return () => {
    clearTimeout(typing);
    for (const n of names) model.off(`change:${n}`, sync);
    model.off("change:rows", syncRows);
    model.off("change:can_reopen", syncRows);
    model.off("msg:custom", onMessage);
  };
}

export default { render };
