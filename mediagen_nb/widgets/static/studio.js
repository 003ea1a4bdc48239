// The Studio's top line: mode chip, "Connect to the real service" form, resume status
// (after kit.js). The API key goes to the kernel in one custom message and is never a trait.

function render({ model, el }) {
  const root = mgPanel(el, "studio");
  const chip = mgChip("", "accent");
  const resume = mgEl("p", { class: "mg-bar__resume mg-muted", role: "status" });
  const keyHint = "kept in this kernel's memory only, never saved";
  const key = mgEl("input", { type: "password", name: "api-key", autocomplete: "off", placeholder: keyHint });
  const baseHint = model.get("base_url_hint") || "https://…/api";
  const base = mgEl("input", { type: "text", name: "base-url", placeholder: baseHint });
  const textHint = model.get("text_url_hint") || "https://…/gateway";
  const text = mgEl("input", { type: "text", name: "text-base-url", placeholder: textHint });
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
  const toDemo = () => model.send({ action: "demo" });
  const demo = mgButton({ label: "Back to demo mode", kind: "secondary", action: "demo", onClick: toDemo });
  const form = mgEl("div", { class: "mg-form" },
    mgField({
      id: mgId("mg-key"),
      label: "API key",
      help: "Sent once to this kernel; not stored in the notebook.",
      apiName: "MEDIAGEN_API_KEY",
      control: key,
      required: true,
    }),
    mgField({
      id: mgId("mg-base"),
      label: "Base URL",
      help: "Media endpoints; empty: MEDIAGEN_BASE_URL.",
      apiName: "MEDIAGEN_BASE_URL",
      control: base,
    }),
    mgField({
      id: mgId("mg-text"),
      label: "Text URL",
      help: "Chat endpoints; empty: MEDIAGEN_TEXT_BASE_URL.",
      apiName: "MEDIAGEN_TEXT_BASE_URL",
      control: text,
    }));
  const details = mgEl("details", { class: "mg-bar__connect" },
    mgEl("summary", { text: "Connect to the real service" }),
    form,
    mgEl("div", { class: "mg-row mg-bar__actions" }, connect, demo));
  const bar = mgEl("div", { class: "mg-bar" }, mgEl("span", { class: "mg-bar__name", text: "mediagen" }), chip);
  root.append(bar, mgNotice(model), details, resume);

  function sync() {
    const isDemo = model.get("demo");
    chip.querySelector(".mg-chip__text").textContent = model.get("mode");
    chip.className = `mg-chip mg-chip--${isDemo ? "accent" : "success"}`;
    chip.dataset.mode = isDemo ? "demo" : "connected";
    demo.disabled = isDemo;
    resume.textContent = model.get("resume_text");
    resume.hidden = !model.get("resume_text");
  }
  const names = ["change:mode", "change:demo", "change:resume_text"];
  for (const n of names) model.on(n, sync);
  sync();
  root.dataset.mgReady = "1";
  return () => {
    for (const n of names) model.off(n, sync);
  };
}

export default { render };
