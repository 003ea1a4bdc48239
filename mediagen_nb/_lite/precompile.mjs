// Add bytecode to the site's wheels and stdlib with the site's own Pyodide (_bytecode.py).
//
//   node precompile.mjs PYODIDE_DIR WHEEL_DIR HELPER.py STDLIB WHEEL...
//
// PYODIDE_DIR holds pyodide.mjs and its core files; WHEEL_DIR the wheels (changed in place);
// STDLIB is "yes" to add bytecode to PYODIDE_DIR/python_stdlib.zip too (in place), else "no".
// Loads every wheel, runs the helper's WARM_UP (a Studio's start) to learn what a start
// imports, and prints one JSON line: {archive file name: pyc files added}.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [core, wheels, helper, stdlib, ...names] = process.argv.slice(2);
if (!core || !wheels || !helper || !["yes", "no"].includes(stdlib)) {
  console.error("usage: node precompile.mjs PYODIDE_DIR WHEEL_DIR HELPER.py yes|no WHEEL...");
  process.exit(2);
}
const dir = path.resolve(core);
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const quiet = () => {};
const py = await loadPyodide({ indexURL: dir + path.sep, stdout: quiet, stderr: quiet });
const files = names.map((n) => path.join(path.resolve(wheels), n));
await py.loadPackage(files, { messageCallback: quiet, errorCallback: console.error });
py.FS.mkdirTree("/wheels");
py.mountNodeFS("/wheels", path.resolve(wheels));
py.FS.mkdirTree("/core");
py.mountNodeFS("/core", dir);
py.runPython(fs.readFileSync(helper, "utf8"));
await py.runPythonAsync(py.globals.get("WARM_UP"));
py.globals.set("NAMES", py.toPy(names.map((n) => `/wheels/${n}`)));
py.globals.set("STDLIB", stdlib === "yes" ? "/core/python_stdlib.zip" : null);
const done = py.runPython("import json; json.dumps(add_bytecode_to(list(NAMES), STDLIB))");
// Exit once the line is out: the warm-up's Studio leaves timers (its history's browser
// sync) that would keep Node alive for ever.
process.stdout.write(done + "\n", () => process.exit(0));
