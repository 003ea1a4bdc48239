// ClassroomPanel: the teacher's view of a classroom gateway in the notebook (after the kit,
// classroom_parts.js and classroom_queue.js). Python syncs `items` (with small image previews),
// `approval` and `queue` (the items waiting for approval), `usage`, `refusals`, `chats`,
// `paused`, `wall_url`, `export_note` and `export_file` (its tooltip); buttons and the queue's
// keys send {"action": "hide" | "approve" | "pause" | "export"}.

function mgClassHeader() {
  const link = mgEl("a", { target: "_blank", rel: "noopener", text: "Open the wall" });
  const el = mgEl("header", { class: "mg-class-head" }, mgEl("h2", { text: "Classroom" }), link);
  return {
    el,
    traits: ["wall_url"],
    update(model) {
      link.href = model.get("wall_url") || "#";
      link.hidden = !model.get("wall_url");
    },
  };
}

function mgClassQueuePart(send) {
  const queue = mgClassQueue({
    onApprove: (id) => send({ action: "approve", id }),
    onHide: (id) => send({ action: "hide", id, hidden: true }),
  });
  return {
    el: queue.el,
    traits: ["queue", "approval"],
    update(model) {
      queue.el.hidden = !model.get("approval");
      queue.update(model.get("queue") || []);
    },
  };
}

function render({ model, el }) {
  const send = (message) => model.send(message);
  const controls = mgClassControls({
    onPause: (paused) => send({ action: "pause", paused }),
    onExport: () => send({ action: "export" }),
  });
  const usage = mgClassUsage();
  const refusals = mgClassRefusals();
  const chats = mgClassChats();
  const gallery = mgClassGallery({ label: "Work from the class, newest first", teacher: true,
    onHide: (id, hidden) => send({ action: "hide", id, hidden }) });
  return mgCompose(model, el, "classroom", [
    mgClassHeader(),
    mgNoticePart(model),
    { el: controls.el, traits: ["paused"], update: (m) => controls.update(m.get("paused")) },
    mgStatusLine("export_note", "mg-class-export", "export_file"),
    mgClassQueuePart(send),
    mgEl("h3", { text: "Usage per student" }),
    { el: usage.el, traits: ["usage"], update: (m) => usage.update(m.get("usage") || []) },
    mgEl("h3", { text: "On the wall" }),
    { el: gallery.el, traits: ["items"], update: (m) => gallery.update(m.get("items") || []) },
    mgEl("h3", { text: "Refused prompts" }),
    { el: refusals.el, traits: ["refusals"], update: (m) => refusals.update(m.get("refusals") || []) },
    mgEl("h3", { text: "Chat turns" }),
    { el: chats.el, traits: ["chats"], update: (m) => chats.update(m.get("chats") || []) },
  ]);
}

export default { render };
