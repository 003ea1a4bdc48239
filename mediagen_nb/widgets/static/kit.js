// mediagen kit: the small component set every panel front end shares (hand-written, no build
// step, no CDN). anywidget loads one module string per widget, so `_frontend.esm()` puts this
// file first and the panel's own source after it; the panel file ends with the one
// default export of its `render`. Every name is prefixed `mg` so panel code cannot clash.
// Colours come from kit.css tokens (JupyterLab `--jp-*` variables with fallbacks).

const MG_STATUS_TEXT = {
  sending: "Sending",
  queued: "Queued",
  processing: "Working",
  completed: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
  submitted: "Submitted",
  Processing: "In review",
  Active: "Active",
  Failed: "Failed",
};

let mgIdCounter = 0;

/** A fresh id for label/for and aria-describedby pairs. */
function mgId(prefix = "mg") {
  mgIdCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${mgIdCounter}`;
}

/**
 * Create an element. attrs: `class`, `text`, `html` is NOT supported (no innerHTML anywhere),
 * `on<Event>` handlers (onClick, onKeydown...), `aria-*`, `data-*`, `style` (object or
 * string), booleans (`disabled`, `hidden`...) and any other attribute or property.
 * Children: nodes, strings (text nodes), arrays (flattened); null/undefined/false skipped.
 */
function mgEl(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class" || key === "className") {
      node.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    } else if (key === "text") {
      node.textContent = String(value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(node.style, value);
    } else if (/^on[A-Z]/.test(key) && typeof value === "function") {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key.startsWith("aria-") || key.startsWith("data-") || key === "role") {
      node.setAttribute(key, value === true ? "true" : String(value));
    } else if (key === "value" || key === "checked" || key === "selected") {
      node[key] = value;
    } else if (value === true) {
      node.setAttribute(key, "");
    } else {
      node.setAttribute(key, String(value));
    }
  }
  mgAppend(node, children);
  return node;
}

function mgAppend(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) mgAppend(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Remove every child of `node`, then append `children`. */
function mgReplace(node, ...children) {
  node.replaceChildren();
  return mgAppend(node, children);
}

/**
 * A real <button>. kind: primary | secondary | ghost | danger. `action` sets
 * data-mg-action (browser tests), `ariaLabel` names icon-only buttons.
 */
function mgButton({ label, kind = "secondary", disabled = false, title, onClick, action, ariaLabel } = {}) {
  const button = mgEl("button", {
    type: "button",
    class: `mg-btn mg-btn--${kind}`,
    title,
    "aria-label": ariaLabel,
    "data-mg-action": action,
    text: label,
  });
  button.disabled = Boolean(disabled);
  if (onClick) {
    button.addEventListener("click", (event) => {
      if (!button.disabled) onClick(event);
    });
  }
  return button;
}

/**
 * One form row: label column + control column (CSS grid; stacks under 600 px). The API
 * field name goes in the label's title; help is visible text under the control; `error`
 * (shown only when the caller says so) is announced politely. Returns the row element with
 * `row.mgSetError(text)` and `row.mgSetHelp(text)`.
 */
function mgField({ id, label, help, apiName, control, error, required = false } = {}) {
  const controlId = id || control?.id || mgId("mg-field");
  const labelable = control?.matches?.("input, select, textarea");
  if (labelable && !control.id) control.id = controlId;
  const labelEl = mgEl(labelable ? "label" : "span", {
    class: "mg-field__label",
    for: labelable ? controlId : undefined,
    id: `${controlId}-label`,
    title: apiName ? `API field: ${apiName}` : undefined,
  }, label, required ? mgEl("span", { class: "mg-field__req", "aria-hidden": "true", text: " *" }) : null);
  if (control?.setAttribute && !labelable && !control.getAttribute("aria-labelledby")) {
    control.setAttribute("aria-labelledby", labelEl.id);
  }
  const helpEl = mgEl("div", { class: "mg-field__help", id: `${controlId}-help` });
  const errorEl = mgEl("div", { class: "mg-error", id: `${controlId}-error`, "aria-live": "polite" });
  const body = mgEl("div", { class: "mg-field__control" }, control, helpEl, errorEl);
  const row = mgEl("div", { class: "mg-field", "data-field": apiName || undefined }, labelEl, body);
  const describe = () => {
    if (!control?.setAttribute) return;
    const ids = [helpEl, errorEl].filter((node) => node.textContent).map((node) => node.id);
    if (ids.length) control.setAttribute("aria-describedby", ids.join(" "));
    else control.removeAttribute("aria-describedby");
    if (errorEl.textContent) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  };
  row.mgSetHelp = (text) => {
    helpEl.textContent = text || "";
    helpEl.hidden = !text;
    describe();
  };
  row.mgSetError = (text) => {
    errorEl.textContent = text || "";
    errorEl.hidden = !text;
    row.classList.toggle("mg-field--invalid", Boolean(text));
    describe();
  };
  row.mgSetHelp(help);
  row.mgSetError(error);
  return row;
}

/**
 * A segmented control: role=radiogroup of role=radio buttons with a roving tabindex;
 * arrow keys, Home and End move and select. `row.mgSet(value)` updates it from outside
 * without calling onChange; `row.mgValue()` reads it.
 */
function mgSegmented({ name, label, options = [], value, onChange, disabled = false } = {}) {
  const group = mgEl("div", { class: "mg-seg", role: "radiogroup", "aria-label": label, "data-name": name, name });
  let current = value;
  const buttons = options.map((opt) =>
    mgEl("button", {
      type: "button",
      class: "mg-seg__opt",
      role: "radio",
      "data-value": opt.value,
      title: opt.title,
      text: opt.label,
      onClick: () => choose(opt.value, true),
    }),
  );
  function sync() {
    const hasCurrent = options.some((o) => o.value === current);
    buttons.forEach((b, i) => {
      const on = options[i].value === current;
      b.setAttribute("aria-checked", on ? "true" : "false");
      b.tabIndex = on || (!hasCurrent && i === 0) ? 0 : -1;
      b.disabled = Boolean(disabled);
    });
  }
  function choose(v, fire) {
    if (disabled) return;
    const changed = v !== current;
    current = v;
    sync();
    if (fire && changed && onChange) onChange(v);
  }
  group.addEventListener("keydown", (event) => {
    const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    let index = options.findIndex((o) => o.value === current);
    if (event.key in keys) index = (index + keys[event.key] + options.length) % options.length;
    else if (event.key === "Home") index = 0;
    else if (event.key === "End") index = options.length - 1;
    else return;
    event.preventDefault();
    choose(options[index].value, true);
    buttons[index].focus();
  });
  mgAppend(group, buttons);
  group.mgSet = (v) => choose(v, false);
  group.mgValue = () => current;
  sync();
  return group;
}

/** A small label. kind: neutral | accent | success | warn | error. `onRemove` adds an x button. */
function mgChip(text, kind = "neutral", onRemove) {
  const chip = mgEl("span", { class: `mg-chip mg-chip--${kind}` },
    mgEl("span", { class: "mg-chip__text", text, title: text }));
  if (onRemove) {
    chip.append(mgEl("button", {
      type: "button",
      class: "mg-chip__remove",
      "aria-label": `Remove ${text}`,
      text: "×",
      onClick: onRemove,
    }));
  }
  return chip;
}

/**
 * A status badge: dark text on a tint of the status colour (readable in every theme).
 * `label` overrides the kit's wording (History sends its own, shared with its filter).
 */
function mgBadge(status, label) {
  const text = label || MG_STATUS_TEXT[status] || String(status || "");
  return mgEl("span", { class: `mg-badge mg-badge--${String(status).toLowerCase()}`, text });
}

let mgLiveRegion = null;

/** Say `text` to screen readers (one polite live region per document). */
function mgAnnounce(text) {
  if (!mgLiveRegion || !mgLiveRegion.isConnected) {
    mgLiveRegion = mgEl("div", {
      class: "mg-sr-only",
      "aria-live": "polite",
      role: "status",
      style: {
        position: "absolute",
        width: "1px",
        height: "1px",
        overflow: "hidden",
        clip: "rect(0 0 0 0)",
        whiteSpace: "nowrap",
      },
    });
    document.body.append(mgLiveRegion);
  }
  mgLiveRegion.textContent = "";
  setTimeout(() => {
    mgLiveRegion.textContent = text;
  }, 30);
}

async function mgCopyText(text) {
  try {
    const timeout = new Promise((_r, reject) => setTimeout(() => reject(new Error("timeout")), 1000));
    await Promise.race([navigator.clipboard.writeText(text), timeout]);
    return true;
  } catch (_err) {
    const hide = { position: "fixed", top: "-1000px", opacity: "0" };
    const area = mgEl("textarea", { style: hide, "aria-hidden": "true" });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (_e) {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/**
 * A button that copies `text` (a string, or a function returning one) and says "Copied" in
 * its own label for 1.5 s (also announced through a live region). `button.mgSetText(t)`.
 */
function mgCopy(text, label = "Copy", kind = "secondary") {
  let value = text;
  const button = mgButton({ label, kind, title: "Copy to the clipboard" });
  button.classList.add("mg-copy");
  let timer = null;
  button.addEventListener("click", async () => {
    const t = typeof value === "function" ? value() : value;
    const ok = await mgCopyText(String(t ?? ""));
    button.textContent = ok ? "Copied" : "Select and press Ctrl+C";
    mgAnnounce(ok ? "Copied to the clipboard" : "Copy failed: select the text and press Ctrl+C");
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
  button.mgSetText = (t) => {
    value = t;
  };
  return button;
}

/**
 * Tabs (WAI-ARIA tab list): tabs [{id, label, panel}] (panel: a node, optional), `selected`
 * id, `onSelect(id)` after a click or a key. role=tablist/tab/tabpanel, aria-selected,
 * aria-controls / aria-labelledby, roving tabindex; ArrowLeft/ArrowRight (wrapping), Home and
 * End move the focus and select (automatic activation). Returns the root with
 * `root.mgSelect(id)` (no onSelect) and `root.mgPanelOf(id)` (the tab panel element).
 */
function mgTabs({ tabs = [], selected, onSelect, label = "Sections" } = {}) {
  const base = mgId("mg-tab");
  const orientation = { "aria-orientation": "horizontal" };
  const list = mgEl("div", { class: "mg-tabs__list", role: "tablist", "aria-label": label, ...orientation });
  const tabEls = tabs.map((tab, i) => mgEl("button", {
    type: "button",
    class: "mg-tabs__tab",
    role: "tab",
    id: `${base}-${i}`,
    "aria-controls": `${base}-${i}-panel`,
    "data-mg-tab": tab.id,
    text: tab.label,
    onClick: () => select(tab.id, true),
  }));
  const panelEls = tabs.map((tab, i) => mgEl("div", {
    class: "mg-tabs__panel",
    role: "tabpanel",
    id: `${base}-${i}-panel`,
    "aria-labelledby": `${base}-${i}`,
    "data-mg-tab": tab.id,
    tabindex: "0",
  }, tab.panel));
  let current = null;
  function select(id, fire) {
    if (!tabs.some((tab) => tab.id === id)) return;
    const changed = id !== current;
    current = id;
    tabs.forEach((tab, i) => {
      const on = tab.id === id;
      tabEls[i].setAttribute("aria-selected", on ? "true" : "false");
      tabEls[i].tabIndex = on ? 0 : -1;
      panelEls[i].hidden = !on;
    });
    if (fire && changed && onSelect) onSelect(id);
  }
  const moves = { ArrowRight: (i) => i + 1, ArrowLeft: (i) => i - 1, Home: () => 0, End: () => tabs.length - 1 };
  list.addEventListener("keydown", (event) => {
    const move = moves[event.key];
    if (!move || !tabs.length) return;
    event.preventDefault();
    const i = (move(tabs.findIndex((t) => t.id === current)) + tabs.length) % tabs.length;
    select(tabs[i].id, true);
    tabEls[i].focus();
  });
  mgAppend(list, tabEls);
  const root = mgEl("div", { class: "mg-tabs" }, list, mgEl("div", { class: "mg-tabs__panels" }, panelEls));
  root.mgSelect = (id) => select(id, false);
  root.mgPanelOf = (id) => panelEls[tabs.findIndex((t) => t.id === id)];
  select(selected ?? tabs[0]?.id, false);
  return root;
}

/** A <select>; options [{value, label, title}] or groups [{group, options: [...]}]. */
function mgSelect({ name, options = [], value, onChange, id, disabled = false } = {}) {
  const select = mgEl("select", { class: "mg-input mg-select", name, id, disabled });
  const option = (o) => mgEl("option", { value: o.value, title: o.title, text: o.label ?? o.value });
  for (const o of options) {
    if (o.group) select.append(mgEl("optgroup", { label: o.group }, o.options.map(option)));
    else select.append(option(o));
  }
  if (value !== undefined) select.value = value;
  if (onChange) select.addEventListener("change", () => onChange(select.value));
  return select;
}

/** Seconds as "4.2 s" / "2 min 5 s"; "–" when unknown. */
function mgFmtSeconds(s) {
  if (!Number.isFinite(s) || s < 0) return "–";
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - 60 * m)} s`;
}

/** An object URL for bytes from a Bytes trait (DataView/ArrayBuffer); null when empty. */
function mgBlobUrl(view, mime) {
  if (!view || !view.byteLength) return null;
  return URL.createObjectURL(new Blob([view], { type: mime }));
}

/** Offer a browser download of `url` as `name`. */
function mgDownload(url, name) {
  const a = mgEl("a", { href: url, download: name, style: { display: "none" } });
  document.body.append(a);
  a.click();
  a.remove();
}

/**
 * The panel's message area for the `notice` trait, with a Dismiss button that sends
 * {"action": "dismiss"}. `notice_kind` (Python decides) says how: "error" (a failed action or
 * background task) is role=alert in the error colour; "info" (a normal state worth saying,
 * e.g. a browser tab keeping history in memory) is role=status, announced politely, in the
 * text colour. The role is set before the text, so the live region announces the new kind.
 * A component (see `mgCompose`); `mgNotice(model)` is the same box, kept up to date by itself.
 */
function mgNoticePart(model) {
  const text = mgEl("span", { class: "mg-notice__text" });
  const onClick = () => model.send({ action: "dismiss" });
  const dismiss = mgButton({ label: "Dismiss", kind: "ghost", action: "dismiss", onClick });
  const el = mgEl("div", { class: "mg-notice", role: "alert" }, text, dismiss);
  return {
    el,
    traits: ["notice", "notice_kind"],
    update() {
      const kind = model.get("notice_kind") === "info" ? "info" : "error";
      el.dataset.kind = kind;
      el.setAttribute("role", kind === "info" ? "status" : "alert");
      el.classList.toggle("mg-notice--info", kind === "info");
      text.textContent = model.get("notice") || "";
      el.hidden = !text.textContent;
    },
  };
}

function mgNotice(model) {
  const part = mgNoticePart(model);
  mgOn(model, part.traits, () => part.update(model));
  part.update(model);
  return part.el;
}

/**
 * A polite status line for one text trait (e.g. where a Save went): role=status, hidden while
 * the trait is empty. `cls` adds the panel's class; `titleTrait` (optional) names a trait
 * shown as the line's tooltip (e.g. the file's full path when the line shows a short one).
 */
function mgStatusLine(trait, cls = "", titleTrait = "") {
  const el = mgEl("p", { class: ["mg-status-line", cls], role: "status" });
  return {
    el,
    traits: titleTrait ? [trait, titleTrait] : [trait],
    update(model) {
      el.textContent = model.get(trait) || "";
      el.hidden = !el.textContent;
      const title = titleTrait ? model.get(titleTrait) || "" : "";
      if (title) el.title = title;
      else el.removeAttribute("title");
    },
  };
}

/** "Copy as code": a <details> with the `code` trait in a <pre> and a Copy button. */
function mgCodeBox(cls, trait = "code") {
  const pre = mgEl("pre", { tabindex: "0", "aria-label": "Code of the next request" });
  let text = "";
  const el = mgEl("details", { class: cls },
    mgEl("summary", { text: "Copy as code" }),
    mgEl("div", { class: "mg-code" }, pre, mgCopy(() => text, "Copy")));
  return {
    el,
    traits: [trait],
    update(model) {
      text = model.get(trait) || "";
      pre.textContent = text;
    },
  };
}

/** Call `fn` on each `change:<trait>` (or a full event name with a colon); returns an undo. */
function mgOn(model, names, fn) {
  const events = names.map((n) => (n.includes(":") ? n : `change:${n}`));
  for (const event of events) model.on(event, fn);
  return () => {
    for (const event of events) model.off(event, fn);
  };
}

/** The names of the --jp-* variables a JupyterLab page's theme stylesheets declare. */
function mgThemeNames(doc) {
  const names = new Set();
  for (const sheet of doc.styleSheets) {
    let rules;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // a stylesheet of another origin: not a JupyterLab theme
    }
    for (const rule of rules) {
      if (!rule.style) continue;
      for (const name of rule.style) if (name.startsWith("--jp-")) names.add(name);
    }
  }
  return names;
}

/**
 * In Voila's preview tab (a same-origin iframe of JupyterLab), follow JupyterLab's theme live:
 * JupyterLab sets data-jp-theme-name on its body once a new theme's CSS is in, and each time
 * the page takes the host's --jp-* values (and its light/dark flags), so a switch to Dark
 * needs no reload. Installed once per page; anywhere else (a notebook, marimo, another
 * origin) it does nothing.
 */
function mgFollowHostTheme(doc = document) {
  const view = doc.defaultView;
  if (!view || view.mgFollowsHostTheme || view.parent === view) return;
  let host;
  try {
    host = view.parent.document.body;
  } catch {
    return; // embedded by another origin: its theme is not ours to read
  }
  if (!host?.dataset?.jpThemeName || doc.body === host) return;
  view.mgFollowsHostTheme = true;
  const sync = () => {
    const values = view.parent.getComputedStyle(host);
    for (const name of mgThemeNames(view.parent.document)) {
      const value = values.getPropertyValue(name).trim();
      if (value) doc.documentElement.style.setProperty(name, value);
    }
    const light = host.dataset.jpThemeLight !== "false";
    doc.documentElement.style.colorScheme = light ? "light" : "dark";
    doc.body.dataset.jpThemeLight = String(light);
    doc.body.dataset.jpThemeName = host.dataset.jpThemeName;
  };
  const watch = new view.parent.MutationObserver(sync);
  watch.observe(host, { attributes: true, attributeFilter: ["data-jp-theme-name", "data-jp-theme-light"] });
  view.addEventListener("pagehide", () => watch.disconnect(), { once: true });
  sync();
}

/**
 * The panel root: <div class="mg-panel mg-panel--<name>">, appended to `el`.
 */
function mgPanel(el, name, ...children) {
  const root = mgEl("div", { class: `mg-panel mg-panel--${name}` }, ...children);
  el.append(root);
  mgFollowHostTheme(el.ownerDocument);
  return root;
}

/**
 * Several components (or nodes) in one element: `attrs` of a <div>, or of `attrs.tag`.
 * `mgCompose` wires each of them.
 */
function mgGroup({ tag = "div", ...attrs }, ...parts) {
  const live = parts.filter((part) => part && !(part instanceof Node));
  return { el: mgEl(tag, attrs, parts.map((part) => (part instanceof Node ? part : part?.el))), parts: live };
}

/** Every component of `parts`, groups opened up (see `mgGroup`). */
function mgLeaves(parts) {
  return parts.flatMap((part) => {
    if (!part || part instanceof Node) return [];
    return part.parts ? mgLeaves(part.parts) : [part];
  });
}

/**
 * Mount a panel made of components, the way every panel's `render` does. A component is
 * `{el, traits, update(model), onMessage?(msg, buffers), dispose?()}`: its `update` runs once,
 * then again on each change of one of its `traits`, touching only its own part; `onMessage`
 * gets the kernel's custom messages; a plain node is mounted as it is. Marks the root
 * data-mg-ready="1"; returns the cleanup for anywidget.
 */
function mgCompose(model, el, name, parts) {
  const root = mgPanel(el, name, parts.map((part) => (part instanceof Node ? part : part?.el)));
  const leaves = mgLeaves(parts);
  const undo = [];
  for (const part of leaves) {
    if (part.traits?.length) undo.push(mgOn(model, part.traits, () => part.update(model)));
    if (part.onMessage) undo.push(mgOn(model, ["msg:custom"], part.onMessage));
    if (part.dispose) undo.push(() => part.dispose());
  }
  for (const part of leaves) part.update?.(model);
  root.dataset.mgReady = "1";
  return () => {
    for (const fn of undo) fn();
  };
}
