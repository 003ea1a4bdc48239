// The teacher's moderation parts (after the kit and classroom_parts.js), shared by
// ClassroomPanel and the wall's teacher page: the approval queue, refused prompts, and the
// students' chat turns. In the queue, keys act on the item shown: A approves, H hides,
// J / ArrowRight / ArrowDown show the next item, K / ArrowLeft / ArrowUp the one before.

const MG_QUEUE_KEYS = {
  a: "approve",
  h: "hide",
  j: "next",
  k: "previous",
  ArrowRight: "next",
  ArrowDown: "next",
  ArrowLeft: "previous",
  ArrowUp: "previous",
};

function mgQueueLabel(item) {
  return `${item.kind === "video" ? "video" : "image"} by ${item.student}: ${item.prompt || "no prompt"}`;
}

/**
 * The approval queue: one item at a time, with Approve / Hide / Next buttons and the same
 * actions on keys. What was decided leaves at once (the next state confirms it); changes are
 * announced politely; focus stays in the queue, and goes to its heading once it is empty.
 * `update(queue)` takes the waiting items, oldest first.
 */
function mgClassQueue({ onApprove, onHide, level = "h3" }) {
  let items = [];
  let index = 0;
  const decided = new Set();
  const heading = mgEl(level, { class: "mg-class-queue__title", tabindex: "-1", text: "Waiting for approval" });
  const count = mgEl("p", { class: "mg-class-queue__count" });
  const help = mgEl("p", { id: mgId("mg-queue-help"), class: "mg-class-queue__help",
    text: "Keys: A approves, H hides, J or → shows the next item, K or ← the one before." });
  const figure = mgEl("div", { class: "mg-class-queue__item" });
  const card = mgEl("div", { class: "mg-class-queue__card", tabindex: "0", role: "group",
    "aria-describedby": help.id }, figure);
  const button = (label, kind, action, keys) => {
    const b = mgButton({ label, kind, action: `queue-${action}`, onClick: () => act(action) });
    b.setAttribute("aria-keyshortcuts", keys);
    return b;
  };
  const buttons = mgEl("div", { class: "mg-class-queue__buttons", role: "group", "aria-label": "Decide" },
    button("Approve", "primary", "approve", "A"), button("Hide", "secondary", "hide", "H"),
    button("Next", "ghost", "next", "J ArrowRight"));
  const body = mgEl("div", { class: "mg-class-queue__body" }, card, buttons, help);
  // the queue's keys are JupyterLab's command-mode keys too (A inserts a cell, J moves down):
  // Lumino skips shortcuts for events from inside this attribute (JupyterLab 4.5 already
  // leaves widget outputs alone; this keeps it so where a front end would not)
  const el = mgEl("section", { class: "mg-class-queue", "aria-label": "Approval queue",
    "data-lm-suppress-shortcuts": "true" }, heading, count, body);

  const waiting = () => items.filter((item) => !decided.has(item.id));

  function render() {
    const list = waiting();
    index = Math.max(0, Math.min(index, list.length - 1));
    body.hidden = list.length === 0;
    count.textContent = list.length
      ? `${list.length} waiting; showing ${index + 1} of ${list.length}.`
      : "Nothing is waiting: new images and videos appear here before they reach the wall.";
    if (!list.length) return;
    const item = list[index];
    const key = `${item.id}|${item.src ? 1 : 0}`;
    if (figure.dataset.key !== key) {
      mgReplace(figure, mgClassFigure(item));
      figure.dataset.key = key;
      card.dataset.id = item.id;
    }
    card.setAttribute("aria-label", `Item ${index + 1} of ${list.length}: ${mgQueueLabel(item)}`);
  }

  function act(action) {
    const list = waiting();
    if (!list.length) return;
    const item = list[index];
    if (action === "next" || action === "previous") {
      index = (index + (action === "next" ? 1 : list.length - 1)) % list.length;
      render();
      mgAnnounce(`Item ${index + 1} of ${list.length}: ${mgQueueLabel(waiting()[index])}`);
      return;
    }
    decided.add(item.id);
    (action === "approve" ? onApprove : onHide)(item.id);
    render();
    const left = waiting().length;
    const done = action === "approve" ? "Approved" : "Hidden";
    mgAnnounce(`${done}: ${mgQueueLabel(item)}. ${left ? `${left} waiting.` : "Nothing is waiting."}`);
    if (!left) heading.focus();
  }

  el.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, select, textarea")) return;
    const action = MG_QUEUE_KEYS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
    if (!action || !waiting().length) return;
    event.preventDefault();
    act(action);
  });

  return {
    el,
    update(queue) {
      const current = waiting()[index]?.id;
      items = queue || [];
      const present = new Set(items.map((item) => item.id));
      for (const id of [...decided]) if (!present.has(id)) decided.delete(id);
      const at = waiting().findIndex((item) => item.id === current);
      if (at >= 0) index = at;
      render();
    },
  };
}

function mgClassTime(ts) {
  return ts ? new Date(ts * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
}

/** A table with a sentence in its place while it has no rows. `update(rows)`. */
function mgClassLog({ label, cls, columns, empty }) {
  const table = mgTable({ label, cls, columns });
  const none = mgEl("p", { class: "mg-class-log__empty", text: empty });
  return {
    el: mgEl("div", { class: "mg-class-log" }, none, table.el),
    update(rows) {
      table.update(rows);
      table.el.hidden = rows.length === 0;
      none.hidden = rows.length > 0;
    },
  };
}

/** Prompts the class's rules refused, newest first. `update(rows)`. */
function mgClassRefusals() {
  return mgClassLog({
    label: "Refused prompts, newest first",
    cls: "mg-class-refusals",
    empty: "No prompt has been refused.",
    columns: [
      { label: "Time", cell: (row) => mgClassTime(row.ts) },
      { label: "Student", cell: (row) => row.student },
      { label: "Asked for", cell: (row) => row.asked || row.where },
      { label: "Prompt", cell: (row) => row.prompt },
      { label: "Rule", cell: (row) => row.rule },
    ],
  });
}

/** The students' chat turns, newest first, with a choice of student. `update(rows)`. */
function mgClassChats() {
  let rows = [];
  let names = "";
  const log = mgClassLog({
    label: "Chat turns, newest first",
    cls: "mg-class-chats",
    empty: "No chat turns yet.",
    columns: [
      { label: "Time", cell: (row) => mgClassTime(row.ts) },
      { label: "Student", cell: (row) => row.student },
      { label: "Model", cell: (row) => row.model },
      { label: "Prompt", cell: (row) => row.prompt },
      { label: "Answer (start)", cell: (row) => row.answer },
      { label: "Tokens", cell: (row) => String(row.tokens), cls: "mg-num" },
    ],
  });
  const id = mgId("mg-chat-student");
  const select = mgSelect({ id, options: [{ value: "", label: "Every student" }], onChange: () => show() });
  const pick = mgEl("div", { class: "mg-class-chats__pick" },
    mgEl("label", { for: id, text: "Student" }), select);
  function show() {
    log.update(select.value ? rows.filter((row) => row.student === select.value) : rows);
  }
  return {
    el: mgEl("div", { class: "mg-class-chats-box" }, pick, log.el),
    update(next) {
      rows = next || [];
      const seen = [...new Set(rows.map((row) => row.student))].sort();
      if (seen.join("\n") !== names) {
        names = seen.join("\n");
        const chosen = select.value;
        mgReplace(select, mgEl("option", { value: "", text: "Every student" }),
          seen.map((name) => mgEl("option", { value: name, text: name })));
        select.value = seen.includes(chosen) ? chosen : "";
      }
      show();
    },
  };
}
