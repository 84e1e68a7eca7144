// pi's getBranch(id) for given entries: the path root -> entry that pitui's branch diff compares.
// Usage: node branch_oracle.mjs < [{"path": FILE, "ids": [ID...]}, ...]
//   -> one JSON array: {"path": FILE, "branches": {ID: [ids root -> ID]}} per file
// Loads dist/core/session-manager.js of $PI_ORACLE_PACKAGE_DIR (0.73.1 and 1.6.0 both have it).
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.PI_ORACLE_PACKAGE_DIR;
const { SessionManager } = await import(
  pathToFileURL(join(dir, "dist/core/session-manager.js")).href
);

const requests = JSON.parse(readFileSync(0, "utf8"));
const work = mkdtempSync(join(tmpdir(), "pi-branch-"));
const out = [];
try {
  for (const [index, { path, ids }] of requests.entries()) {
    const copy = join(work, `${index}-${basename(path)}`); // pi may rewrite what it opens
    copyFileSync(path, copy);
    const sm = SessionManager.open(copy);
    const branches = {};
    for (const id of ids) branches[id] = sm.getBranch(id).map((entry) => entry.id);
    out.push({ path, branches });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out));
