// Tokens and cost as pi 0.73.1 shows them: its footer sums the usage of every assistant message in
// the file (sessionManager.getEntries()); the same sum over getBranch() is the branch's. Usage:
//   node facts_oracle.mjs FILE...  -> one JSON array, an object per file
// (pi's /session uses the same four-part sum over the context's messages.)
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.PI_ORACLE_PACKAGE_DIR;
const { SessionManager } = await import(
  pathToFileURL(join(dir, "dist/core/session-manager.js")).href
);

function spend(entries) {
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, cost: 0 };
  for (const entry of entries) {
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    const usage = entry.message.usage;
    sum.input += usage.input;
    sum.output += usage.output;
    sum.cacheRead += usage.cacheRead;
    sum.cacheWrite += usage.cacheWrite;
    sum.cost += usage.cost.total;
  }
  sum.total = sum.input + sum.output + sum.cacheRead + sum.cacheWrite;
  return sum;
}

const work = mkdtempSync(join(tmpdir(), "pi-facts-"));
const out = [];
try {
  for (const [index, file] of process.argv.slice(2).entries()) {
    const copy = join(work, `${index}-${basename(file)}`); // pi may rewrite what it opens
    copyFileSync(file, copy);
    const sm = SessionManager.open(copy);
    out.push({ path: file, file: spend(sm.getEntries()), branch: spend(sm.getBranch()) });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out));
