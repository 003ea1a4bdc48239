// The class wall (served by the gateway after kit.js, kit_table.js, classroom_parts.js and
// classroom_queue.js). Its requests are relative to the page (behind JupyterHub's proxy it has
// a prefix). It polls /wall/feed.json every second (204 when nothing changed). With the teacher
// token in the address's fragment (#teacher=...), which browsers never send to a server, it
// shows the teacher's controls (approval queue, usage, refused prompts, chat turns) and reads
// /wall/api/state instead. Pasting the teacher's link into a tab that shows the plain wall
// changes only the fragment: the page then starts over as that view.

const POLL_MS = 1000;

/** Addresses relative to the page (`/wall`), so the wall also works behind a path prefix
 * (JupyterHub's proxy serves it at /services/<name>/wall). */
const relative = (path) => (path.startsWith("/") ? path.slice(1) : path);
let token = "";
let auth = {};
const blobs = new Map(); // media URL -> object URL, for items only the teacher may fetch

async function call(path, init = {}) {
  const response = await fetch(path, { ...init, headers: { ...auth, ...(init.headers || {}) } });
  if (response.status === 401) throw new Error("The teacher token in this address is wrong.");
  if (!response.ok && response.status !== 204) throw new Error(`The gateway answered ${response.status}.`);
  return response;
}

async function post(path, body) {
  const response = await call(path, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify(body) });
  return response.json();
}

/** An item's src: its public URL, or (hidden or waiting) its media fetched with the token. */
async function withSrc(item) {
  if (!token || (!item.hidden && !item.waiting)) return { ...item, src: relative(item.url) };
  if (!blobs.has(item.url)) {
    try {
      const response = await call(relative(item.url));
      blobs.set(item.url, URL.createObjectURL(await response.blob()));
    } catch (_error) {
      return { ...item, src: "" };
    }
  }
  return { ...item, src: blobs.get(item.url) };
}

function heading(text) {
  return mgEl("h2", { class: "mg-wall-subtitle", text });
}

function setup(root) {
  token = new URLSearchParams(location.hash.slice(1)).get("teacher") || "";
  auth = token ? { authorization: `Bearer ${token}` } : {};
  root.mgGeneration = (root.mgGeneration || 0) + 1;
  const generation = root.mgGeneration;
  const status = root.querySelector(".mg-wall-status");
  const gallery = mgClassGallery({ label: "Work from the class, newest first", teacher: Boolean(token),
    onHide: (id, hidden) => post("wall/api/hide", { id, hidden }).then(show, fail) });
  const usage = mgClassUsage();
  const queue = mgClassQueue({ level: "h2",
    onApprove: (id) => post("wall/api/approve", { id }).then(show, fail),
    onHide: (id) => post("wall/api/hide", { id, hidden: true }).then(show, fail) });
  const refusals = mgClassRefusals();
  const chats = mgClassChats();
  const controls = mgClassControls({
    onPause: (paused) => post("wall/api/pause", { paused }).then(show, fail),
    onExport: () => call("wall/api/export.zip").then((r) => r.blob()).then((blob) => {
      mgDownload(URL.createObjectURL(blob), "class-gallery.zip");
    }, fail),
  });
  const teacher = root.querySelector(".mg-wall-teacher");
  teacher.replaceChildren(controls.el, queue.el, heading("Usage per student"), usage.el,
    heading("Refused prompts"), refusals.el, heading("Chat turns"), chats.el);
  teacher.hidden = !token;
  const items = root.querySelector(".mg-wall-items");
  items.replaceChildren(items.querySelector("h2"), gallery.el);
  let version = "";

  async function show(data) {
    version = String(data.version);
    const [shown, waiting] = await Promise.all([Promise.all(data.items.map(withSrc)),
      Promise.all((data.queue || []).map(withSrc))]);
    if (generation !== root.mgGeneration) return;
    gallery.update(shown);
    controls.update(data.paused);
    queue.el.hidden = !data.approve;
    if (data.usage) usage.update(data.usage);
    if (data.queue) queue.update(waiting);
    if (data.refusals) refusals.update(data.refusals);
    if (data.chats) chats.update(data.chats);
    const on = data.items.filter((item) => !item.hidden && !item.waiting).length;
    status.textContent = data.paused ? "Paused by the teacher" : `${on} on the wall`;
  }

  function fail(error) {
    status.textContent = String(error.message || error);
  }

  async function tick() {
    if (generation !== root.mgGeneration) return; // a newer view of the page took over
    try {
      const path = token ? "wall/api/state" : `wall/feed.json?since=${encodeURIComponent(version)}`;
      const response = await call(path);
      if (response.status !== 204) await show(await response.json());
    } catch (error) {
      if (generation === root.mgGeneration) fail(error);
    }
    setTimeout(tick, POLL_MS);
  }

  tick();
  root.dataset.mgReady = "1";
}

const wall = document.querySelector(".mg-wall");
setup(wall);
window.addEventListener("hashchange", () => setup(wall));
