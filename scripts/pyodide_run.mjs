// Run a Python file in real Pyodide under Node, with this checkout's mediagen_nb.
//
//   node scripts/pyodide_run.mjs SITE script.py
//
// SITE is a folder made by `mediagen-nb lite build` (its static/pyodide/ holds Pyodide and
// every wheel the playground ships). The package comes from this checkout's source, so a
// change can be tried in the browser's Python (threads refused, no Pillow/av/pandas,
// sys.platform "emscripten") without rebuilding the site. Top-level await works.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [site, script] = process.argv.slice(2);
if (!site || !script) {
  console.error("usage: node scripts/pyodide_run.mjs SITE script.py");
  process.exit(2);
}
const dir = path.resolve(site, "static", "pyodide");
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: dir + path.sep });
const wheels = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".whl") && !f.startsWith("mediagen_nb-"))
  .map((f) => path.join(dir, f));
await py.loadPackage(wheels, { messageCallback: () => {} });

function copy(from, to) {
  py.FS.mkdirTree(to);
  for (const name of fs.readdirSync(from)) {
    if (name === "__pycache__") continue;
    const source = path.join(from, name);
    if (fs.statSync(source).isDirectory()) copy(source, `${to}/${name}`);
    else py.FS.writeFile(`${to}/${name}`, fs.readFileSync(source));
  }
}
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
copy(path.join(checkout, "mediagen_nb"), "/home/pyodide/checkout/mediagen_nb");
py.runPython("import sys; sys.path.insert(0, '/home/pyodide/checkout')");
try {
  await py.runPythonAsync(fs.readFileSync(script, "utf8"));
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
process.exit(0);
