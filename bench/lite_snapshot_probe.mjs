// Can Pyodide's memory snapshot shorten the playground's second visit? Run it on a built site:
//
//   mediagen-nb lite build --output /tmp/site
//   node bench/lite_snapshot_probe.mjs /tmp/site 2>/dev/null  (Pyodide lists the wheels on stderr)
//
// A started kernel is Pyodide after the site's wheels are loaded and IPython is imported,
// with a heap far over Pyodide's default 30 MB. The probe tries both halves of that with the
// site's own Pyodide: (1) snapshot a 90 MB heap (no packages) and restore it, (2) snapshot
// after loading the wheels and importing IPython. Exit 0 when both work (time to build the
// snapshot into the site), 1 otherwise, with Pyodide's errors. With Pyodide 314.0.7:
// "RangeError: offset is out of bounds" and "Unexpected hiwire entry" (pyodide#6254, #6418).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const site = process.argv[2];
if (!site) {
  console.error("usage: node bench/lite_snapshot_probe.mjs SITE_DIR");
  process.exit(2);
}
const dir = path.resolve(site, "static", "pyodide");
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const quiet = () => {};
const start = (more) => loadPyodide({ indexURL: dir + path.sep, stdout: quiet, stderr: quiet, ...more });

async function bigHeap() {
  const py = await start({ _makeSnapshot: true });
  py.runPython("kept = [str(i) * 20 for i in range(400000)]");
  const snapshot = py.makeMemorySnapshot();
  const again = await start({ _loadSnapshot: snapshot });
  return `${(snapshot.length / 1e6).toFixed(0)} MB heap restored, ${again.runPython("len(kept)")} items`;
}

async function afterPackages() {
  const py = await start({ _makeSnapshot: true });
  const wheels = fs.readdirSync(dir).filter((n) => n.endsWith(".whl"));
  await py.loadPackage(wheels.map((n) => path.join(dir, n)), { messageCallback: quiet });
  py.runPython("import IPython, ipywidgets");
  const snapshot = py.makeMemorySnapshot();
  const again = await start({ _loadSnapshot: snapshot });
  return `IPython restored: ${again.runPython("import sys; 'IPython' in sys.modules")}`;
}

let works = true;
for (const [name, probe] of [["a 90 MB heap", bigHeap], ["after the wheels", afterPackages]]) {
  try {
    console.log(`snapshot of ${name}: works (${await probe()})`);
  } catch (error) {
    works = false;
    console.log(`snapshot of ${name}: fails (${String(error).split("\n")[0]})`);
  }
}
process.exit(works ? 0 : 1);
