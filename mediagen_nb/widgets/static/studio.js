// The Studio (after kit.js): a mode line with the "Connect to the real service" form, then a
// tab list whose panels are the Studio's child widgets, drawn with anywidget's composition
// API (`host.getWidget(ref)`). The API key goes to the kernel in one custom message and is
// never a trait.

const STUDIO_PANELS = { Chat: "panel_chat", Images: "panel_images", Videos: "panel_videos", Assets: "panel_assets", History: "panel_history" };

function studioConnectForm(model) {
  const hint = (name, fallback) => model.get(name) || fallback;
  const key = mgEl("input", { type: "password", name: "api-key", autocomplete: "off", placeholder: "kept in this kernel's memory only, never saved" });
  const base = mgEl("input", { type: "text", name: "base-url", placeholder: hint("base_url_hint", "https://…/api") });
  const text = mgEl("input", { type: "text", name: "text-base-url", placeholder: hint("text_url_hint", "https://…/gateway") });
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
  key.addEventListener("input", () => { connect.disabled = !key.value.trim(); });
  key.addEventListener("keydown", (e) => { if (e.key === "Enter" && !connect.disabled) connect.click(); });
  const demo = mgButton({ label: "Back to demo mode", kind: "secondary", action: "demo", onClick: () => model.send({ action: "demo" }) });
  const field = (label, help, apiName, control, required) => mgField({ id: mgId("mg-connect"), label, help, apiName, control, required });
  const form = mgEl("div", { class: "mg-form" },
    field("API key", "Sent once to this kernel; not stored in the notebook.", "MEDIAGEN_API_KEY", key, true),
    field("Base URL", "Media endpoints; empty: MEDIAGEN_BASE_URL.", "MEDIAGEN_BASE_URL", base, false),
    field("Text URL", "Chat endpoints; empty: MEDIAGEN_TEXT_BASE_URL.", "MEDIAGEN_TEXT_BASE_URL", text, false));
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
  const resume = mgEl("p", { class: "mg-bar__resume mg-muted", role: "status" });
  const connect = studioConnectForm(model);
  const node = mgEl("div", { class: "mg-studio__bar" },
    mgEl("div", { class: "mg-bar" }, mgEl("span", { class: "mg-bar__name", text: "mediagen" }), chip, connect),
    resume);
  function update() {
    const isDemo = model.get("demo");
    chip.querySelector(".mg-chip__text").textContent = model.get("mode");
    chip.className = `mg-chip mg-chip--${isDemo ? "accent" : "success"}`;
    chip.dataset.mode = isDemo ? "demo" : "connected";
    connect.mgDemoButton.disabled = isDemo;
    resume.textContent = model.get("resume_text");
    resume.hidden = !model.get("resume_text");
  }
  update();
  return { node, update, events: ["change:mode", "change:demo", "change:resume_text"] };
}

/** Draw the child widget `ref` into `slot` (a tab panel); a placeholder until it is built. */
function studioMount(host, slot, ref, signal) {
  if (slot.mgRef === ref && ref) return;
  slot.mgRef = ref;
  if (slot.mgAbort) slot.mgAbort.abort();
  const controller = new AbortController();
  slot.mgAbort = controller;
  signal.addEventListener("abort", () => controller.abort(), { once: true });
  const title = slot.dataset.mgTab;
  if (!ref || !host) {
    const why = host ? "it is built when this tab is first opened" : "this front end cannot compose widgets (anywidget 0.11 or later is needed)";
    slot.replaceChildren(mgEl("p", { class: "mg-muted mg-studio__placeholder", text: `Loading the ${title} panel… (${why})` }));
    return;
  }
  const target = mgEl("div", { class: "mg-studio__child" });
  host.getWidget(ref)
    .then((child) => {
      if (controller.signal.aborted) return undefined;
      slot.replaceChildren(target);
      return child.render({ el: target, signal: controller.signal });
    })
    .catch((error) => {
      slot.replaceChildren(mgEl("p", { class: "mg-error", role: "alert", text: `The ${title} panel could not be shown: ${error}` }));
    });
}

function render({ model, el, host, signal }) {
  const lifetime = new AbortController();
  if (signal) signal.addEventListener("abort", () => lifetime.abort(), { once: true });
  const titles = model.get("titles");
  const bar = studioBar(model);
  const tabs = mgTabs({
    label: "Studio panels",
    tabs: titles.map((title) => ({ id: title, label: title })),
    selected: model.get("tab"),
    onSelect: (id) => { model.set("tab", id); model.save_changes(); },
  });
  const root = mgPanel(el, "studio", bar.node, mgNotice(model), tabs);
  const mountAll = () => titles.forEach((title) => studioMount(host, tabs.mgPanelOf(title), model.get(STUDIO_PANELS[title]), lifetime.signal));
  const showTab = () => tabs.mgSelect(model.get("tab"));
  const listeners = [[bar.events, bar.update], [Object.values(STUDIO_PANELS).map((n) => `change:${n}`), mountAll], [["change:tab"], showTab]];
  listeners.forEach(([names, fn]) => names.forEach((n) => model.on(n, fn)));
  mountAll();
  root.dataset.mgReady = "1";
  return () => {
    lifetime.abort();
    listeners.forEach(([names, fn]) => names.forEach((n) => model.off(n, fn)));
  };
}

export default { render };
