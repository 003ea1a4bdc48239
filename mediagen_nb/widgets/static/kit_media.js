// mediagen kit: media components (composed after kit.js by `_frontend.esm`): the lightbox,
// the result card and the gallery of the image and video panels.

/** Keep Tab inside `box` (a modal): from the last focusable to the first and back. */
function mgTrapTab(box, event) {
  const focusables = [...box.querySelectorAll("button:not([hidden]), video")];
  const first = focusables[0];
  const last = focusables[focusables.length - 1];
  const active = box.getRootNode().activeElement;
  const to = event.shiftKey && active === first ? last : !event.shiftKey && active === last ? first : null;
  to?.focus();
  return Boolean(to);
}

/**
 * A modal viewer: items [{src, kind: "image"|"video", alt, caption}], starting at `index`.
 * Close button (aria-label="Close"), Escape closes, ArrowLeft/ArrowRight step, a click on the
 * backdrop closes; focus returns to where it was. `host` (default: document.body) is where it
 * is mounted: pass the panel root inside a shadow DOM (marimo) so the kit styles apply.
 * Returns { el, show(i), close() }.
 */
function mgLightbox({ items = [], index = 0, onClose, host } = {}) {
  const before = document.activeElement;
  let at = Math.max(0, Math.min(index, items.length - 1));
  const stage = mgEl("div", { class: "mg-lightbox__stage" });
  const caption = mgEl("p", { class: "mg-lightbox__caption" });
  const counter = mgEl("span", { class: "mg-lightbox__count", "aria-live": "polite" });
  const prev = mgButton({ label: "‹", kind: "ghost", ariaLabel: "Previous", onClick: () => show(at - 1) });
  const next = mgButton({ label: "›", kind: "ghost", ariaLabel: "Next", onClick: () => show(at + 1) });
  const closeBtn = mgButton({ label: "×", kind: "ghost", ariaLabel: "Close", action: "close", 
    onClick: () => close() });
  closeBtn.classList.add("mg-lightbox__close");
  const box = mgEl("div", {
    class: "mg-lightbox__box",
    onClick: (event) => event.stopPropagation(),
  }, mgEl("div", { class: "mg-lightbox__bar" },
    counter, mgEl("span", { class: "mg-lightbox__spacer" }), prev, next, closeBtn), stage, caption);
  const root = mgEl("div", {
    class: "mg-lightbox mg-panel",
    role: "dialog",
    "aria-modal": "true",
    "aria-label": "Preview",
    tabindex: "-1",
    onClick: () => close(),
  }, box);
  function show(i) {
    if (!items.length) return;
    at = (i + items.length) % items.length;
    const item = items[at];
    const media = item.kind === "video"
      ? mgEl("video", { src: item.src, controls: true, autoplay: true, class: "mg-lightbox__media" })
      : mgEl("img", { src: item.src, alt: item.alt || item.caption || "preview", class: "mg-lightbox__media" });
    mgReplace(stage, media);
    caption.textContent = item.caption || "";
    counter.textContent = items.length > 1 ? `${at + 1} of ${items.length}` : "";
    prev.hidden = next.hidden = items.length < 2;
  }
  function onKey(event) {
    const steps = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    } else if (event.key in steps) {
      show(at + steps[event.key]);
    } else if (event.key !== "Tab" || !mgTrapTab(box, event)) {
      return;
    }
    event.preventDefault();
  }
  let closed = false;
  function close() {
    if (closed) return;
    closed = true;
    root.removeEventListener("keydown", onKey);
    root.remove();
    if (before?.focus && before.isConnected) before.focus();
    if (onClose) onClose();
  }
  root.addEventListener("keydown", onKey);
  (host || document.body).append(root);
  show(at);
  closeBtn.focus();
  return { el: root, show, close };
}
