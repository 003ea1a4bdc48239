// The playground's service worker (replaces JupyterLite's own, doing its job too): a second
// visit loads the site from this browser's Cache Storage, without the network.
// - /api/drive and /api/stdin requests go to the page over a BroadcastChannel, exactly as
//   JupyterLite's service worker does (its DriveFS and input() rely on it);
// - every other GET of this site is answered from the cache "{{CACHE}}" (named after the
//   build, so a new build's worker starts a new cache and deletes the old ones), else fetched
//   once and kept.
"use strict";
const CACHE = "{{CACHE}}";
const broadcast = new BroadcastChannel("/sw-api.v1");

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  const old = caches.keys().then((names) =>
    Promise.all(names.filter((n) => n.startsWith("mediagen-lite-") && n !== CACHE).map((n) => caches.delete(n))),
  );
  event.waitUntil(old.then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (url.pathname === "/api/service-worker-heartbeat") {
    event.respondWith(new Response("ok"));
  } else if (url.origin === location.origin && /\/api\/(drive|stdin\/)/.test(url.pathname)) {
    event.respondWith(toThePage(event.request, url));
  } else if (event.request.method === "GET" && url.origin === location.origin && !url.pathname.includes("/api/")) {
    event.respondWith(cached(event));
  }
});

/** From the cache, else from the network (kept when it is a whole 200 response). */
async function cached(event) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(event.request);
  if (hit) return hit;
  const response = await fetch(event.request);
  if (response.status === 200 && response.type === "basic") {
    event.waitUntil(cache.put(event.request, response.clone()));
  }
  return response;
}

/** JupyterLite's drive protocol: the request's JSON goes to the page, its answer comes back. */
async function toThePage(request, url) {
  const message = await request.json();
  const id = message.requestId ?? crypto.randomUUID();
  message.requestId = id;
  const answer = new Promise((resolve) => {
    const listen = (event) => {
      const data = event.data;
      if (data.browsingContextId !== message.browsingContextId || data.requestId !== id) return;
      resolve(new Response(JSON.stringify(data.response)));
      broadcast.removeEventListener("message", listen);
    };
    broadcast.addEventListener("message", listen);
  });
  message.pathname = url.pathname;
  broadcast.postMessage(message);
  return await answer;
}
