// SweepGrid: a sweep's results as a labelled table; every cell follows the run.

function caption(model) {
  const x = model.get("x_label");
  const y = model.get("y_label");
  const text = y ? `${x} across, ${y} down` : `${x} across`;
  const element = document.createElement("caption");
  element.textContent = text;
  return element;
}

function header(model) {
  const head = document.createElement("thead");
  const row = document.createElement("tr");
  const corner = document.createElement("td");
  row.append(corner);
  for (const label of model.get("columns")) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = label;
    row.append(th);
  }
  head.append(row);
  return head;
}

function cellContent(entry) {
  const td = document.createElement("td");
  td.className = `mg-sweep-cell mg-sweep-${entry?.status ?? "pending"}`;
  if (entry?.src) {
    const img = document.createElement("img");
    img.src = entry.src;
    img.alt = entry.alt ?? "";
    td.append(img);
  }
  const status = document.createElement("div");
  status.className = "mg-sweep-status";
  status.textContent = entry?.note || entry?.status || "pending";
  td.append(status);
  return td;
}

function body(model) {
  const tbody = document.createElement("tbody");
  const byPlace = new Map(model.get("cells").map((c) => [`${c.row}:${c.col}`, c]));
  model.get("rows").forEach((label, r) => {
    const row = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = label;
    row.append(th);
    model.get("columns").forEach((_c, c) => {
      row.append(cellContent(byPlace.get(`${r}:${c}`)));
    });
    tbody.append(row);
  });
  return tbody;
}

function render({ model, el }) {
  const table = document.createElement("table");
  table.className = "mg-sweep-grid";
  el.append(table);
  const draw = () => table.replaceChildren(caption(model), header(model), body(model));
  draw();
  for (const name of ["cells", "columns", "rows", "x_label", "y_label"]) {
    model.on(`change:${name}`, draw);
  }
}

export default { render };
