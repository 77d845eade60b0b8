// Whether a build carries the UI's test hooks: every `window.__tributary…` name the sources use (src/graph/testHooks.ts).
//   node scripts/check-test-hooks.mjs dist        fails if any hook name is in the production build's scripts or page
//   node scripts/check-test-hooks.mjs --expect dist-test   fails if one is missing from the test build (so the check
//                                                           above cannot pass only because the names changed)
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const args = process.argv.slice(2);
const expect = args[0] === "--expect";
const build = expect ? args[1] : args[0];
if (!build) throw new Error("usage: check-test-hooks.mjs [--expect] <build dir>");

/** Every file under `dir` whose name ends with one of `endings`. */
function files(dir, endings) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && endings.some((ending) => entry.name.endsWith(ending)))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

const hooks = new Set();
for (const file of files("src", [".ts"])) for (const [name] of readFileSync(file, "utf8").matchAll(/__tributary\w+/g)) hooks.add(name);
if (!hooks.size) throw new Error("no test hook names (__tributary…) found in src/");

// What runs in the browser: the scripts and the page (a source map is not loaded by the page).
const shipped = files(build, [".js", ".html"]).map((file) => ({ file, text: readFileSync(file, "utf8") }));
if (!shipped.length) throw new Error(`${build} has no built scripts: build it first`);
const found = [...hooks].map((hook) => ({ hook, in: shipped.filter(({ text }) => text.includes(hook)).map(({ file }) => relative(build, file)) }));
const wrong = found.filter((entry) => (expect ? entry.in.length === 0 : entry.in.length > 0));
if (wrong.length) {
  for (const entry of wrong) {
    console.error(expect ? `${build}: test hook ${entry.hook} is missing` : `${build}: test hook ${entry.hook} is in ${entry.in.join(", ")}`);
  }
  process.exit(1);
}
console.log(`${build}: ${expect ? "has" : "has none of"} the test hooks ${[...hooks].join(", ")}`);
