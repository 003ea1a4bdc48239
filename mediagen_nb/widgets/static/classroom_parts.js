// Classroom components shared by the teacher's ClassroomPanel and the gateway's wall page
// (composed after the kit; the wall page gets kit.js, kit_table.js, this file and wall.js).
// Items: {id, student, prompt, kind, model, src, hidden, waiting}; usage rows: {student, access,
// images, videos, running, chat_tokens, limits: {images, videos, running, chat_tokens}}.

/** An item's media and caption (the student's name and the prompt). */
function mgClassFigure(item) {
  const what = item.kind === "video" ? "video" : "image";
  const label = `${what} by ${item.student}: ${item.prompt || "no prompt"}`;
  let media;
  if (!item.src) {
    media = mgEl("div", { class: "mg-class-item__placeholder", role: "img", "aria-label": label, text: what });
  } else if (item.kind === "video") {
    // a projector's wall plays each clip silently on repeat; controls still pause it
    media = mgEl("video", { src: item.src, controls: true, muted: true, loop: true, autoplay: true,
      playsinline: true, preload: "auto", "aria-label": label });
    media.muted = true; // the attribute alone does not mute an element made by script
  } else {
    media = mgEl("img", { src: item.src, alt: label, loading: "lazy" });
  }
  const caption = mgEl("figcaption", {},
    mgEl("strong", { class: "mg-class-item__student", text: item.student }),
    mgEl("span", { class: "mg-class-item__prompt", text: item.prompt || "" }));
  return mgEl("figure", { class: "mg-class-item__figure" }, media, caption);
}

/** One item of the gallery: its figure, and for the teacher Hide / Show and its state. */
function mgClassItem(item, { teacher, onHide }) {
  const what = item.kind === "video" ? "video" : "image";
  const parts = [mgClassFigure(item)];
  if (teacher && item.waiting) parts.push(mgEl("span", { class: "mg-class-item__tag", text: "Waiting for approval" }));
  if (teacher) {
    const verb = item.hidden ? "Show" : "Hide";
    parts.push(mgButton({ label: verb, kind: "ghost", action: item.hidden ? "show" : "hide",
      ariaLabel: `${verb} ${item.student}'s ${what} on the wall`,
      onClick: () => onHide(item.id, !item.hidden) }));
  }
  return mgEl("li", { class: ["mg-class-item", item.hidden && "mg-class-item--hidden"], "data-id": item.id,
    "data-hidden": item.hidden ? "1" : "0" }, parts);
}

/**
 * The gallery, newest first. Items already shown keep their element (a playing video is not
 * restarted); new ones are added, gone ones removed. `update(items)`.
 */
function mgClassGallery({ label, teacher = false, onHide = () => {} } = {}) {
  const list = mgEl("ul", { class: "mg-class-gallery", "aria-label": label });
  const empty = mgEl("p", { class: "mg-class-empty",
    text: "Nothing yet: images and videos appear here as students make them." });
  const shown = new Map();
  return {
    el: mgEl("div", { class: "mg-class-gallery-box" }, list, empty),
    update(items) {
      const keep = new Set();
      let before = list.firstChild;
      for (const item of items) {
        const key = `${item.id}|${item.hidden ? 1 : 0}|${item.waiting ? 1 : 0}|${item.src ? 1 : 0}`;
        let node = shown.get(key);
        if (!node) {
          node = mgClassItem(item, { teacher, onHide });
          shown.set(key, node);
        }
        keep.add(key);
        if (node !== before) list.insertBefore(node, before);
        before = node.nextSibling;
      }
      for (const [key, node] of shown) {
        if (!keep.has(key)) {
          node.remove();
          shown.delete(key);
        }
      }
      empty.hidden = items.length > 0;
    },
  };
}

/**
 * Usage per student as a table, each count against its limit ("3 of 5", "345 of 300 tokens";
 * a plain count where there is no limit; a cell at or over its limit is marked). `update(rows)`.
 */
function mgClassUsage() {
  const format = new Intl.NumberFormat("en");
  const counted = (name, unit = "") => (row) => {
    const used = row[name] ?? 0;
    const limit = row.limits?.[name];
    if (limit === null || limit === undefined) return format.format(used);
    const text = `${format.format(used)} of ${format.format(limit)}${unit}`;
    const full = used >= limit;
    return mgEl("span", { class: ["mg-class-count", full && "mg-class-count--full"],
      "data-full": full ? "1" : "0", text });
  };
  return mgTable({
    label: "Usage per student",
    cls: "mg-class-usage",
    columns: [
      { label: "Student", cell: (row) => row.student },
      { label: "Access", cell: (row) => row.access },
      { label: "Images", cell: counted("images"), cls: "mg-num" },
      { label: "Videos", cell: counted("videos"), cls: "mg-num" },
      { label: "Running", cell: counted("running"), cls: "mg-num" },
      { label: "Chat tokens", cell: counted("chat_tokens", " tokens"), cls: "mg-num" },
    ],
    rowAttrs: (row) => ({ "data-row-key": row.student }),
  });
}

/** Pause / resume and export. `update(paused)`. */
function mgClassControls({ onPause, onExport }) {
  let paused = false;
  const pause = mgButton({ label: "Pause class", action: "pause", onClick: () => onPause(!paused) });
  const state = mgEl("span", { class: "mg-class-state", role: "status" });
  const exportButton = mgButton({ label: "Export gallery (zip)", action: "export", onClick: () => onExport() });
  return {
    el: mgEl("div", { class: "mg-class-controls", role: "group", "aria-label": "Class controls" },
      pause, exportButton, state),
    update(value) {
      paused = Boolean(value);
      pause.textContent = paused ? "Resume class" : "Pause class";
      pause.setAttribute("aria-pressed", paused ? "true" : "false");
      state.textContent = paused ? "The class is paused: new requests are refused." : "The class is running.";
    },
  };
}
