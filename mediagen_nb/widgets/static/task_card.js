// Task card front end (hand-written ES module, no build step, no CDN).
//
// Shows a task's status badge, elapsed time (ticking locally between kernel updates),
// a progress bar against the family's ETA, poll counts, the error text, a Cancel button
// and, once completed, an inline preview built from bytes sent over the widget comm.
// Stable hooks for browser tests: root `.mediagen-task-card[data-status=...]`,
// `img.mediagen-preview`, `video.mediagen-preview`.

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function fmtSeconds(s) {
  if (!isFinite(s) || s < 0) return "–";
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - 60 * m)} s`;
}

function byteSize(view) {
  return view && view.byteLength ? view.byteLength : 0;
}

function blobUrl(view, mime) {
  if (byteSize(view) === 0) return null;
  return URL.createObjectURL(new Blob([view], { type: mime }));
}

function download(url, name) {
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

function render({ model, el: host }) {
  const root = el("div", "mediagen-task-card");
  const head = el("div", "mediagen-card-head");
  const badge = el("span", "mediagen-badge");
  const title = el("span", "mediagen-card-title");
  const cancel = el("button", "mediagen-cancel", "Cancel");
  head.append(badge, title, cancel);
  const bar = el("div", "mediagen-progress");
  const fill = el("div", "mediagen-progress-fill");
  bar.append(fill);
  const meta = el("div", "mediagen-card-meta");
  const error = el("div", "mediagen-card-error");
  const note = el("div", "mediagen-card-note");
  const preview = el("div", "mediagen-preview-box");
  const actions = el("div", "mediagen-card-actions");
  const save = el("button", "mediagen-save", "Save");
  actions.append(save);
  const overlay = el("div", "mediagen-overlay");
  root.append(head, bar, meta, error, note, preview, actions, overlay);
  host.append(root);

  let urls = [];
  let receivedAt = performance.now();
  let wantSave = false;
  let wantFull = false;

  function forget() {
    urls.forEach((u) => URL.revokeObjectURL(u));
    urls = [];
  }

  function elapsed() {
    const base = model.get("elapsed");
    if (TERMINAL.has(model.get("status"))) return base;
    return base + (performance.now() - receivedAt) / 1000;
  }

  function tick() {
    const status = model.get("status");
    const secs = elapsed();
    const [lo, hi] = [model.get("eta_low"), model.get("eta_high")];
    let pct = 0;
    if (status === "completed") pct = 100;
    else if (hi > 0) pct = Math.min(95, (100 * secs) / hi);
    fill.style.width = `${pct.toFixed(1)}%`;
    const next = model.get("next_poll");
    const nextIn = next > 0 ? Math.max(0, next - (performance.now() - receivedAt) / 1000) : -1;
    const parts = [`elapsed ${fmtSeconds(secs)}`];
    if (hi > 0) parts.push(`estimated ${fmtSeconds(lo)}–${fmtSeconds(hi)}`);
    parts.push(`polls ${model.get("polls")}`);
    if (!TERMINAL.has(status) && nextIn >= 0) parts.push(`next poll in ${fmtSeconds(nextIn)}`);
    meta.textContent = parts.join(" · ");
  }

  function showPreview() {
    forget();
    preview.replaceChildren();
    overlay.replaceChildren();
    overlay.style.display = "none";
    if (model.get("status") !== "completed") return;
    const kind = model.get("kind");
    if (kind === "video") {
      const url = blobUrl(model.get("video"), model.get("video_mime"));
      if (!url) return;
      urls.push(url);
      const video = el("video", "mediagen-preview");
      video.controls = true;
      video.muted = true;
      video.src = url;
      preview.append(video);
    } else {
      const url = blobUrl(model.get("thumbnail"), model.get("thumbnail_mime"));
      if (!url) return;
      urls.push(url);
      const img = el("img", "mediagen-preview");
      img.src = url;
      img.alt = model.get("prompt");
      img.title = "click for full size";
      img.addEventListener("click", () => {
        wantFull = true;
        if (byteSize(model.get("full")) > 0) showFull();
        else model.send({ action: "full" });
      });
      preview.append(img);
    }
  }

  function showFull() {
    const url = blobUrl(model.get("full"), model.get("full_mime"));
    if (!url) return;
    urls.push(url);
    if (wantSave) {
      wantSave = false;
      download(url, model.get("file_name"));
    }
    if (wantFull) {
      wantFull = false;
      const big = el("img", "mediagen-full");
      big.src = url;
      overlay.replaceChildren(big);
      overlay.style.display = "flex";
    }
  }

  overlay.addEventListener("click", () => {
    overlay.style.display = "none";
  });
  cancel.addEventListener("click", () => model.send({ action: "cancel" }));
  save.addEventListener("click", () => {
    if (model.get("kind") === "video") {
      const url = blobUrl(model.get("video"), model.get("video_mime"));
      if (url) {
        urls.push(url);
        download(url, model.get("file_name"));
      }
      return;
    }
    wantSave = true;
    if (byteSize(model.get("full")) > 0) showFull();
    else model.send({ action: "full" });
  });

  function update() {
    receivedAt = performance.now();
    const status = model.get("status");
    root.dataset.status = status;
    root.dataset.taskId = model.get("task_id");
    badge.textContent = status;
    badge.className = `mediagen-badge mediagen-badge-${status}`;
    title.textContent = `${model.get("label")}${model.get("task_id") ? " · " + model.get("task_id") : ""}`;
    title.title = model.get("prompt");
    cancel.style.display = TERMINAL.has(status) || !model.get("task_id") ? "none" : "";
    error.textContent = model.get("error");
    error.style.display = model.get("error") ? "" : "none";
    note.textContent = model.get("note");
    note.style.display = model.get("note") ? "" : "none";
    const hasMedia =
      status === "completed" &&
      (byteSize(model.get("video")) > 0 || byteSize(model.get("thumbnail")) > 0);
    actions.style.display = hasMedia ? "" : "none";
    tick();
  }

  model.on("change:status", showPreview);
  model.on("change:thumbnail", showPreview);
  model.on("change:video", showPreview);
  model.on("change:full", showFull);
  model.on("change", update);
  update();
  showPreview();
  const timer = setInterval(tick, 500);
  return () => {
    clearInterval(timer);
    forget();
  };
}

export default { render };
