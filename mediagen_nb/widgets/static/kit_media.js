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
 * Returns { el, show(i), close(), index() }.
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
  return { el: root, show, close, index: () => at };
}

const MG_TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** "Took 4.2 s" when done; "4.2 s · usually 5 s to 10 s" while running. */
function mgCardTime(r, elapsed) {
  const took = mgFmtSeconds(elapsed);
  if (MG_TERMINAL.has(r.status)) return `${r.status === "completed" ? "Took" : "After"} ${took}`;
  const [low, high] = r.eta;
  return high > 0 ? `${took} · usually ${mgFmtSeconds(low)} to ${mgFmtSeconds(high)}` : took;
}

/** A result card's media: the video, the picture (a button that opens it larger), or why not. */
function mgCardMedia(r, url, onOpen) {
  if (url && r.kind === "video") {
    return mgEl("video", { src: url, controls: true, preload: "metadata", "aria-label": `Video: ${r.prompt}` });
  }
  if (url) {
    const label = `Open larger: ${r.prompt}`;
    return mgEl("button", { type: "button", class: "mg-card__open", "aria-label": label, onClick: onOpen },
      mgEl("img", { src: url, alt: r.prompt || r.title }));
  }
  let text = r.status === "completed" ? "No preview" : "No result";
  if (!MG_TERMINAL.has(r.status)) text = r.status === "queued" ? "Waiting in the queue…" : "Generating…";
  return mgEl("span", { class: "mg-card__wait mg-muted", text });
}

/**
 * The address of this page (the top page when it is this site's, e.g. the playground's landing
 * page around JupyterLite's REPL) with `query`: a link that opens a request in the Studio.
 */
function mgShareLink(query) {
  let page = location;
  try {
    if (window.top !== window && window.top.location.origin === location.origin) page = window.top.location;
  } catch (_err) {
    page = location; // another site's frame: this page's own address
  }
  return `${page.origin}${page.pathname}?${query}`;
}

/** "Share": copies the link `link()` returns (kept in `data-link`) and says so for 1.5 s. */
function mgShareButton(link) {
  const button = mgButton({
    label: "Share",
    action: "share",
    title: "Copy a link that opens this request in the Studio (demo mode; never a key)",
  });
  let timer = null;
  button.addEventListener("click", async () => {
    const url = link();
    button.dataset.link = url;
    const ok = await mgCopyText(url);
    button.textContent = ok ? "Link copied" : "Copy failed";
    mgAnnounce(ok ? `Link copied: ${url}` : `Copy failed; the link is ${url}`);
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = "Share";
    }, 1500);
  });
  return button;
}

/**
 * One card action (Animate, Use as reference, Continue from last frame...): a button, and a
 * family picker when several families take the result. A disabled action stays focusable
 * (aria-disabled) and says why in its tooltip and description.
 */
function mgCardUse(id, a, use) {
  const usable = a.targets.filter((t) => !t.reason);
  const cls = "mg-btn mg-btn--secondary mg-card__use";
  const button = mgEl("button", { type: "button", class: cls, "data-mg-use": a.action, text: a.label });
  const parts = [button];
  let pick = null;
  if (!a.enabled) {
    const why = mgEl("span", { id: mgId("mg-why"), class: "mg-sr-only", text: a.reason });
    button.setAttribute("aria-disabled", "true");
    button.setAttribute("aria-describedby", why.id);
    button.title = a.reason;
    parts.push(why);
  } else if (usable.length > 1) {
    pick = mgEl("select", { class: "mg-card__use-family", "aria-label": `Family for ${a.label}` },
      usable.map((t) => mgEl("option", { value: t.family, text: t.title, title: `${t.title}: ${t.field}` })));
    parts.push(pick);
  }
  button.addEventListener("click", () => {
    if (a.enabled) use(id, a.action, pick ? pick.value : usable[0]?.family);
  });
  return mgEl("span", { class: "mg-card__use-item" }, ...parts);
}

/**
 * A result card (<article class="mg-card" role=listitem>) of one task `r` of the `results`
 * trait: status badge, title, Cancel / Remove, time against the estimate, the media, the
 * prompt, why it failed, a note, Save / Run again / Copy as code / Share, and the card
 * actions (`r.actions`, when `on.use` is given). `on` holds the actions ({cancel, remove,
 * save, rerun, open, code, share, use}), each called with the result id (`code` and `share`
 * return the text to copy).
 * `update(r, url)` redraws it from a new `r` and preview URL; `tick(r, elapsed)` the clock.
 */
function mgResultCard(id, on) {
  const p = {};
  const act = (name) => () => on[name](id);
  p.badge = mgBadge("queued");
  p.title = mgEl("span", { class: "mg-card__title" });
  p.cancel = mgButton({ label: "Cancel", action: "cancel", onClick: act("cancel") });
  p.remove = mgButton({ label: "Remove", action: "remove", title: "Remove from the gallery", onClick: act("remove") });
  p.meta = mgEl("span", { class: "mg-card__meta" });
  p.resumed = mgChip("re-attached", "neutral");
  p.fill = mgEl("div", { class: "mg-progress__fill" });
  const bar = { class: "mg-progress", role: "progressbar", "aria-label": "Progress against the estimate" };
  p.progress = mgEl("div", bar, p.fill);
  p.media = mgEl("div", { class: "mg-card__media" });
  p.prompt = mgEl("p", { class: "mg-card__prompt" });
  p.error = mgEl("p", { class: "mg-card__error" });
  p.note = mgEl("p", { class: "mg-card__note mg-muted" });
  p.save = mgButton({ label: "Save", action: "save", onClick: act("save") });
  p.rerun = mgButton({ label: "Run again", action: "rerun", onClick: act("rerun") });
  p.share = mgShareButton(act("share"));
  const el = mgEl("article", { class: "mg-card", role: "listitem", "data-id": id },
    mgEl("header", { class: "mg-card__head" }, p.badge, p.title, p.cancel, p.remove),
    mgEl("div", { class: "mg-card__status" }, p.meta, p.resumed),
    p.progress, p.media, p.prompt, p.error, p.note,
    mgEl("div", { class: "mg-card__actions" }, p.save, p.rerun, mgCopy(act("code"), "Copy as code"), p.share));
  p.uses = mgEl("div", { class: "mg-card__uses", role: "group", "aria-label": "Use this result" });
  p.uses.hidden = true;
  el.append(p.uses);
  let mediaFor = null;
  let usesFor = null;
  function update(r, url) {
    const done = MG_TERMINAL.has(r.status);
    el.dataset.status = r.status;
    el.setAttribute("aria-label", `${r.title}: ${r.status}`);
    const badge = mgBadge(r.status);
    p.badge.replaceWith(badge);
    p.badge = badge;
    p.title.textContent = r.title;
    p.title.title = `${r.model}${r.task_id ? ` · task ${r.task_id}` : ""}`;
    p.resumed.hidden = !r.resumed;
    p.prompt.textContent = p.prompt.title = r.prompt;
    p.error.textContent = r.error && r.status !== "cancelled" ? `Why it failed: ${r.error}` : r.error;
    p.error.hidden = !r.error;
    p.note.textContent = r.note;
    p.note.hidden = !r.note;
    p.progress.hidden = p.cancel.hidden = done;
    p.save.hidden = r.status === "failed" || r.status === "cancelled"; // nothing to save
    p.save.disabled = !(r.status === "completed" && (r.has_media || r.kind === "image"));
    const uses = on.use && r.actions?.length ? JSON.stringify(r.actions) : "";
    if (usesFor !== uses) {
      usesFor = uses;
      mgReplace(p.uses, uses ? r.actions.map((a) => mgCardUse(id, a, on.use)) : []);
      p.uses.hidden = !uses;
    }
    if (mediaFor !== `${r.status}:${url}`) {
      mediaFor = `${r.status}:${url}`;
      mgReplace(p.media, mgCardMedia(r, url, act("open")));
      p.media.hidden = done && !url && r.status !== "completed";
    }
  }
  function tick(r, elapsed) {
    p.meta.textContent = mgCardTime(r, elapsed);
    const high = r.eta[1];
    if (MG_TERMINAL.has(r.status) || !(high > 0)) return;
    p.fill.style.width = `${Math.min(100, (100 * elapsed) / high)}%`;
  }
  return { el, update, tick };
}

/**
 * A gallery (role=list) of keyed items, newest first. `make(item)` builds an entry
 * `{el, ...}` once per key, `update(entry, item)` redraws it, `drop(key)` runs when an item
 * leaves. `sync(items)` keeps the DOM in the items' order; a card that appears after the first
 * sync is scrolled into view ("nearest": only when it is not already visible), so a result
 * below the fold of a stacked panel is not missed.
 */
function mgGallery({ label, make, update, drop }) {
  const el = mgEl("div", { class: "mg-gallery", role: "list", "aria-label": label });
  const entries = new Map();
  let synced = false;
  function sync(items) {
    const keys = new Set(items.map((item) => item.id));
    for (const [key, entry] of entries) {
      if (keys.has(key)) continue;
      entry.el.remove();
      entries.delete(key);
      drop?.(key);
    }
    let previous = null;
    let added = null;
    for (const item of items) {
      let entry = entries.get(item.id);
      if (!entry) {
        entry = make(item);
        entries.set(item.id, entry);
        added = added || entry;
      }
      update(entry, item);
      const wanted = previous ? previous.nextSibling : el.firstChild;
      if (wanted !== entry.el) el.insertBefore(entry.el, wanted);
      previous = entry.el;
    }
    if (added && synced) added.el.scrollIntoView?.({ block: "nearest" });
    synced = true;
  }
  return { el, entries, sync };
}

/** Resolve once `node` fires `name` (reject on `error`); `start()` runs after listening. */
function mgOnce(node, name, start) {
  return new Promise((resolve, reject) => {
    const fail = () => reject(new Error(node.error?.message || `the video could not be read (${name})`));
    node.addEventListener(name, resolve, { once: true });
    node.addEventListener("error", fail, { once: true });
    start?.();
  });
}

/**
 * The `first` or `last` frame of a video (bytes, `mime`) as PNG bytes: a `<video>` of a blob
 * (same origin: the canvas stays readable) seeks there and is drawn onto a `<canvas>`.
 */
async function mgVideoFrame(buffer, mime, which) {
  const url = URL.createObjectURL(new Blob([buffer], { type: mime || "video/mp4" }));
  const video = document.createElement("video");
  video.muted = true;
  video.preload = "auto";
  try {
    await mgOnce(video, "loadeddata", () => {
      video.src = url;
    });
    // the last frame is shown from duration - 1/fps on: a millisecond before the end is in it
    const at = which === "last" && Number.isFinite(video.duration) ? Math.max(0, video.duration - 0.001) : 0;
    await mgOnce(video, "seeked", () => {
      video.currentTime = at;
    });
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
    if (!blob) throw new Error("the canvas made no PNG");
    return await blob.arrayBuffer();
  } finally {
    video.removeAttribute("src");
    video.load();
    URL.revokeObjectURL(url);
  }
}

/**
 * The panel as the kernel's video decoder (a browser kernel has none): says it is shown,
 * answers each `{kind: "frame"}` message with the drawn PNG, says it is gone on dispose.
 */
function mgFrameDrawer(model) {
  model.send({ action: "frames", shown: true });
  return {
    async onMessage(msg, buffers) {
      if (msg?.kind !== "frame") return;
      const answer = { action: "frame", request: msg.request };
      try {
        if (!buffers?.length) throw new Error("no video came with the request");
        model.send(answer, undefined, [await mgVideoFrame(buffers[0], msg.mime, msg.which)]);
      } catch (err) {
        model.send({ ...answer, error: String(err?.message || err) });
      }
    },
    dispose() {
      try {
        model.send({ action: "frames", shown: false });
      } catch {
        // the widget is closed already: the kernel has let go of it
      }
    },
  };
}
