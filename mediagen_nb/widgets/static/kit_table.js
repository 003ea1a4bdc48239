// mediagen kit: a table (composed after kit.js by `_frontend.esm`).

/** Move the focus to the row above or below on ArrowUp / ArrowDown; true when it moved. */
function mgTableStep(tr, key) {
  const to = key === "ArrowDown" ? tr.nextElementSibling : key === "ArrowUp" ? tr.previousElementSibling : null;
  if (!to || to.tabIndex !== 0) return false;
  to.focus();
  return true;
}

/** One body row: cells labelled for the stacked layout; openable rows act on click and keys. */
function mgTableRow(row, columns, attrs, open) {
  const tr = mgEl("tr", { role: "row", ...attrs },
    columns.map((c) => mgEl("td", {
      role: "cell",
      class: c.cls,
      "data-label": c.hideLabel ? undefined : c.label,
    }, c.cell(row))));
  if (!open) return tr;
  tr.tabIndex = 0;
  tr.classList.add("mg-table__row--open");
  tr.addEventListener("click", (event) => {
    if (!event.target.closest("button, a")) open(row);
  });
  tr.addEventListener("keydown", (event) => {
    if (event.target !== tr) return;
    if (event.key === "Enter" || event.key === " ") open(row);
    else if (!mgTableStep(tr, event.key)) return;
    event.preventDefault();
  });
  return tr;
}

/**
 * A table inside its own focusable scroll region. `columns`: [{label, cls, cell(row), hideLabel}].
 * Every cell carries its column's label (data-label): in a narrow panel (kit.css) each row
 * becomes a stacked card whose values keep their labels, so nothing is cut or hidden.
 * `rowAttrs(row)` gives a row's attributes; `open(row)` is called for rows whose
 * `canOpen(row)` is true (click, Enter or Space; ArrowUp/ArrowDown move between them).
 * `update(rows)` redraws the body and keeps the focused row focused.
 */
function mgTable({ label, columns, cls = "", rowAttrs = () => ({}), canOpen = () => false, open } = {}) {
  const head = mgEl("tr", { role: "row" }, columns.map((c) =>
    mgEl("th", { scope: "col", role: "columnheader", class: c.cls },
      c.hideLabel ? mgEl("span", { class: "mg-sr-only", text: c.label }) : c.label)));
  const body = mgEl("tbody", { role: "rowgroup" });
  const table = mgEl("table", { class: ["mg-table", "mg-table--cards", cls], role: "table" },
    mgEl("thead", { role: "rowgroup" }, head), body);
  const el = mgEl("div", { class: "mg-table-scroll", tabindex: "0", role: "region", "aria-label": label }, table);
  return {
    el,
    body,
    update(rows) {
      const active = el.getRootNode().activeElement;
      const focusKey = active?.dataset?.rowKey;
      mgReplace(body, rows.map((row) => {
        const attrs = rowAttrs(row);
        return mgTableRow(row, columns, attrs, canOpen(row) ? open : null);
      }));
      const again = focusKey && [...body.children].find((tr) => tr.dataset.rowKey === focusKey);
      if (again && again.tabIndex === 0) again.focus();
    },
  };
}
