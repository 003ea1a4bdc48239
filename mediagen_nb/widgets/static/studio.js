// The Studio (after kit.js): a mode line with the "Connect to the real service" form, then a
// tab list whose panels are the Studio's child widgets, drawn with anywidget's composition
// API (`host.getWidget(ref)`). The API key goes to the kernel in one custom message and is
// never a trait.

const STUDIO_PANELS = {
  Chat: "panel_chat",
  Images: "panel_images",
  Videos: "panel_videos",
  Assets: "panel_assets",
  History: "panel_history",
};

function studioInput(type, name, placeholder) {
  return mgEl("input", { type, name, placeholder, autocomplete: type === "password" ? "off" : undefined });
}

function studioConnectForm(model) {
  const key = studioInput("password", "api-key", "kept in this kernel's memory only, never saved");
  const base = studioInput("text", "base-url", model.get("base_url_hint") || "https://…/api");
  const text = studioInput("text", "text-base-url", model.get("text_url_hint") || "https://…/gateway");
  const connect = mgButton({
    label: "Connect",
    kind: "primary",
    action: "connect",
    disabled: true,
    onClick: () => {
      model.send({ action: "connect", key: key.value, base_url: base.value, text_base_url: text.value });
      key.value = "";
      connect.disabled = true;
    },
  });
  key.addEventListener("input", () => {
    connect.disabled = !key.value.trim();
  });
  key.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !connect.disabled) connect.click();
  });
  const toDemo = () => model.send({ action: "demo" });
  const demo = mgButton({ label: "Back to demo mode", kind: "secondary", action: "demo", onClick: toDemo });
  const field = (label, help, apiName, control, required = false) =>
    mgField({ id: mgId("mg-connect"), label, help, apiName, control, required });
  const form = mgEl("div", { class: "mg-form" },
    field("API key", "Sent once to this kernel; not stored in the notebook.", "MEDIAGEN_API_KEY", key, true),
    field("Base URL", "Media endpoints; empty: MEDIAGEN_BASE_URL.", "MEDIAGEN_BASE_URL", base),
    field("Text URL", "Chat endpoints; empty: MEDIAGEN_TEXT_BASE_URL.", "MEDIAGEN_TEXT_BASE_URL", text));
  const details = mgEl("details", { class: "mg-bar__connect" },
    mgEl("summary", { text: "Connect to the real service" }),
    form,
    mgEl("div", { class: "mg-row mg-bar__actions" }, connect, demo));
  details.mgDemoButton = demo;
  return details;
}

/** The mode chip, the connect form and the resume line; `update()` follows the model. */
function studioBar(model) {
  const chip = mgChip("", "accent");
  const left = mgEl("span", { class: "mg-bar__left", role: "status", "aria-live": "polite" });
  const resume = mgEl("p", { class: "mg-bar__resume mg-muted", role: "status" });
  const connect = studioConnectForm(model);
  function update() {
    const isDemo = model.get("demo");
    chip.querySelector(".mg-chip__text").textContent = model.get("mode");
    chip.className = `mg-chip mg-chip--${isDemo ? "accent" : "success"} mg-bar__mode`;
    chip.dataset.mode = isDemo ? "demo" : "connected";
    connect.mgDemoButton.disabled = isDemo;
    resume.textContent = model.get("resume_text");
    resume.hidden = !model.get("resume_text");
    left.textContent = model.get("class_line");
    left.hidden = !model.get("class_line");
  }
  update();
  const events = ["change:mode", "change:demo", "change:resume_text", "change:class_line"];
  // the mode chip with a classroom's "left" line under it, at the end of the tab list's line
  const status = mgEl("div", { class: "mg-bar__status" }, chip, left);
  return { status, connect, resume, update, events };
}

function studioPlaceholder(slot, host) {
  const why = host
    ? "it is built when this tab is first opened"
    : "this front end cannot compose widgets: anywidget 0.11 or later is needed";
  const text = `Loading the ${slot.dataset.mgTab} panel… (${why})`;
  slot.replaceChildren(mgEl("p", { class: "mg-muted mg-studio__placeholder", text }));
}

/** Draw the child widget `ref` into `slot` (a tab panel); a placeholder until it is built. */
function studioMount(host, slot, ref, signal) {
  if (ref && slot.mgRef === ref) return;
  slot.mgRef = ref;
  slot.mgAbort?.abort();
  const controller = new AbortController();
  slot.mgAbort = controller;
  signal.addEventListener("abort", () => controller.abort(), { once: true });
  if (!ref || !host) {
    studioPlaceholder(slot, host);
    return;
  }
  const target = mgEl("div", { class: "mg-studio__child" });
  const failed = (error) => {
    const text = `The ${slot.dataset.mgTab} panel could not be shown: ${error}`;
    slot.replaceChildren(mgEl("p", { class: "mg-error", role: "alert", text }));
  };
  host
    .getWidget(ref)
    .then((child) => {
      if (controller.signal.aborted) return undefined;
      slot.replaceChildren(target);
      return child.render({ el: target, signal: controller.signal });
    })
    .catch(failed);
}

/**
 * The page's query (this frame's, and the top page's when it is this site's: the playground's
 * landing page), sent once per page to Python, which fills the Studio from a link's
 * `?tab=images&model=...&prompt=...` (and names a bad value).
 */
function studioReadLink(model) {
  if (window.mgLinkRead) return;
  window.mgLinkRead = true;
  const queries = [location.search];
  try {
    const sameOrigin = window.top !== window && window.top.location.origin === location.origin;
    if (sameOrigin) queries.push(window.top.location.search);
  } catch (_err) {
    // another site's frame: only this page's own query
  }
  const query = queries.map((q) => q.replace(/^\?/, "")).filter(Boolean).join("&");
  if (query) model.send({ action: "prefill", query });
}

function render({ model, el, host, signal }) {
  const lifetime = new AbortController();
  signal?.addEventListener("abort", () => lifetime.abort(), { once: true });
  const titles = model.get("titles");
  const bar = studioBar(model);
  const tabs = mgTabs({
    label: "Studio panels",
    tabs: titles.map((title) => ({ id: title, label: title })),
    selected: model.get("tab"),
    onSelect: (id) => {
      model.set("tab", id);
      model.save_changes();
    },
  });
  // one top line: the tab list, then the mode and "Connect to the real service" at its end
  const top = mgEl("div", { class: "mg-studio__top" }, tabs.querySelector(".mg-tabs__list"), bar.status, bar.connect);
  tabs.prepend(top, mgNotice(model), bar.resume);
  const root = mgPanel(el, "studio", tabs);
  const mountAll = () => {
    for (const title of titles) {
      studioMount(host, tabs.mgPanelOf(title), model.get(STUDIO_PANELS[title]), lifetime.signal);
    }
  };
  const showTab = () => tabs.mgSelect(model.get("tab"));
  const panelEvents = Object.values(STUDIO_PANELS).map((n) => `change:${n}`);
  const listeners = [...bar.events.map((n) => [n, bar.update]), ...panelEvents.map((n) => [n, mountAll])];
  listeners.push(["change:tab", showTab]);
  for (const [name, fn] of listeners) model.on(name, fn);
  mountAll();
  studioReadLink(model);
  // leaving the page while a task runs or a write is not yet kept asks first (`busy`)
  const ask = (event) => {
    if (!model.get("busy")) return;
    event.preventDefault();
    event.returnValue = "";
  };
  addEventListener("beforeunload", ask);
  const showBusy = () => {
    root.dataset.busy = model.get("busy") ? "1" : "0";
  };
  showBusy();
  listeners.push(["change:busy", showBusy]);
  model.on("change:busy", showBusy);
  root.dataset.mgReady = "1";
  return () => {
    removeEventListener("beforeunload", ask);
    lifetime.abort();
    for (const [name, fn] of listeners) model.off(name, fn);
  };
}

export default { render };
