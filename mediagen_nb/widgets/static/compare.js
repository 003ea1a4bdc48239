// Compare in the Images and Videos panels (before generate.js): the switch and the model picker,
// the union form of the chosen models, and the rows of cards. Python owns the state
// (compare_* traits); these components render it and report choices and values.

/** The Compare switch and, while it is on, the two-to-four model picker. */
function mgCmpSwitch(model) {
  const box = mgEl("input", { type: "checkbox", name: "compare" });
  box.addEventListener("change", () => model.send({ action: "compare", on: box.checked }));
  const toggle = mgEl("label", { class: "mg-gen__check mg-cmp__switch" }, box,
    mgEl("span", { text: "Compare models side by side" }));
  const legend = mgEl("legend", { text: "Models to compare (2 to 4)" });
  const list = mgEl("div", { class: "mg-cmp__models" });
  const picker = mgEl("fieldset", { class: "mg-cmp__picker" }, legend, list);
  const chosen = () => [...list.querySelectorAll("input:checked")].map((i) => i.value);
  let drawn = "";
  let shown = null; // the switch follows Python's changes, not every redraw (marimo redraws all)
  return {
    el: mgEl("div", { class: "mg-cmp" }, toggle, picker),
    traits: ["compare", "compare_models", "compare_choices"],
    update() {
      const on = model.get("compare");
      if (on !== shown) box.checked = shown = on;
      picker.hidden = !on;
      const models = model.get("compare_models");
      const key = JSON.stringify([model.get("compare_choices"), models]);
      if (key === drawn) return;
      drawn = key;
      const focused = list.getRootNode().activeElement?.value;
      mgReplace(list, model.get("compare_choices").map((c) => {
        const input = mgEl("input", { type: "checkbox", value: c.value, checked: models.includes(c.value) });
        input.disabled = !input.checked && models.length >= 4;
        input.addEventListener("change", () => {
          const next = chosen();
          if (next.length < 2) {
            input.checked = true; // Python keeps two at least; say so in words
            mgAnnounce("Compare needs at least two models");
            return;
          }
          model.send({ action: "compare_models", models: next });
        });
        return mgEl("label", { class: "mg-cmp__model", title: c.group }, input, mgEl("span", { text: c.label }));
      }));
      if (focused) list.querySelector(`input[value="${CSS.escape(focused)}"]`)?.focus();
    },
  };
}

/** The union form: each row says which models take it and what a model receives instead. */
function mgCmpForm(model, gen) {
  const el = mgEl("div", { class: "mg-form mg-cmp__form", role: "group", "aria-label": "Compare request" });
  const st = {
    ...gen,
    rows: new Map(),
    values: () => ({ ...model.get("compare_values") }),
    commit(key, value) {
      st.pending = { ...st.pending, [key]: value };
      flush();
    },
    commitSoon(key, value) {
      clearTimeout(st.timer);
      st.pending = { ...st.pending, [key]: value };
      st.timer = setTimeout(flush, 250);
    },
    pending: {},
    id: (key) => `${model.get("panel_name")}-compare-${key}`,
  };
  // typing is sent after a pause: Generate first sends what is still pending, as the form does
  function flush() {
    clearTimeout(st.timer);
    const changes = st.pending;
    st.pending = {};
    if (!Object.keys(changes).length) return;
    model.set("compare_values", { ...model.get("compare_values"), ...changes });
    model.save_changes();
  }
  const singleFlush = gen.flush;
  gen.flush = () => {
    flush();
    singleFlush();
  };
  let structure = "";
  const build = () => {
    st.rows = new Map();
    for (const control of model.get("compare_form")) {
      const options = control.options;
      const v = st.values()[control.key];
      const made = ["text", "refs"].includes(control.type)
        ? mgGenTextArea(model, st, control, v)
        : ["select", "segmented", "checkbox"].includes(control.type)
          ? mgGenChoice(st, control, v, options)
          : mgGenLine(model, st, control, v);
      made.input.setAttribute("name", `compare-${control.key}`); // unique beside the single form
      const id = st.id(control.key);
      const row = mgField({ id, label: control.label, apiName: control.api, control: made.input });
      row.classList.add("mg-cmp__row");
      st.rows.set(control.key, { row, sync: made.sync, control });
    }
    const active = el.getRootNode().activeElement;
    const focusName = active && el.contains(active) ? active.getAttribute("name") : null;
    mgReplace(el, [...st.rows.values()].map((r) => r.row));
    if (focusName) el.querySelector(`[name="${focusName}"]`)?.focus();
  };
  return {
    el,
    traits: ["compare", "compare_form", "compare_values", "compare_problems", "attempted"],
    update() {
      el.hidden = !model.get("compare");
      const form = model.get("compare_form");
      const shape = JSON.stringify(form.map((c) => [c.key, c.type, c.options, c.applies]));
      if (shape !== structure) {
        structure = shape;
        build();
      }
      const vals = st.values();
      for (const [key, r] of st.rows) {
        r.sync(vals[key]);
        const c = form.find((x) => x.key === key);
        const applies = `For ${c.applies.join(", ")}.`;
        r.row.mgSetHelp([c.help, applies, ...c.notes.map((n) => `${n}.`)].filter(Boolean).join(" "));
      }
      const problems = model.get("attempted") ? model.get("compare_problems") : [];
      st.rows.get("prompt")?.row.mgSetError(problems.join("\n"));
    },
  };
}

/** The rows of cards, newest first: one card per model, Keep this one, Copy as code. */
function mgCmpRows(model, on, preview, elapsed) {
  const el = mgEl("div", { class: "mg-cmp__rows" });
  const rows = new Map(); // sweep id -> {el, gallery}
  const keepOn = { ...on, use: null }; // Animate, Use as...: once kept, on the gallery's card
  const make = (r) => {
    const card = mgResultCard(r.id, keepOn);
    const send = () => model.send({ action: "keep", id: r.id });
    const keep = mgButton({ label: "Keep this one", action: "keep", onClick: send });
    keep.setAttribute("aria-label", `Keep this one: ${r.title}`);
    card.el.querySelector(".mg-card__actions").prepend(keep);
    return card;
  };
  const sync = () => {
    const wanted = model.get("compare_rows");
    const keys = new Set(wanted.map((w) => w.sweep_id));
    for (const [key, row] of rows) {
      if (keys.has(key)) continue;
      row.el.remove();
      rows.delete(key);
    }
    let previous = null;
    for (const w of wanted) {
      let row = rows.get(w.sweep_id);
      if (!row) {
        const gallery = mgGallery({
          label: `Compared: ${w.label}`,
          make,
          update: (card, r) => {
            card.update(r, r.has_media ? preview(r.id) : null);
            card.tick(r, elapsed(r));
          },
        });
        const code = w.code;
        const shut = () => model.send({ action: "remove_row", sweep_id: w.sweep_id });
        const close = mgButton({ label: "Close row", onClick: shut });
        const head = mgEl("div", { class: "mg-row mg-cmp__head" },
          mgEl("h4", { class: "mg-cmp__title", text: `Compare · ${w.label}` }),
          mgCopy(() => code, "Copy as code"), close);
        const attrs = { class: "mg-cmp__row-cards", "data-sweep": w.sweep_id, "aria-label": `Compare ${w.label}` };
        row = { el: mgEl("section", attrs, head, gallery.el), gallery };
        rows.set(w.sweep_id, row);
      }
      row.gallery.sync(w.cards);
      const wantedAt = previous ? previous.nextSibling : el.firstChild;
      if (wantedAt !== row.el) el.insertBefore(row.el, wantedAt);
      previous = row.el;
    }
  };
  const tick = () => {
    for (const w of model.get("compare_rows")) {
      const entries = rows.get(w.sweep_id)?.gallery.entries;
      for (const r of w.cards) if (!MG_TERMINAL.has(r.status)) entries?.get(r.id)?.tick(r, elapsed(r));
    }
  };
  return { el, traits: ["compare_rows", "media"], update: sync, tick };
}
