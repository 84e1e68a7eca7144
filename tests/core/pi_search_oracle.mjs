// Search oracle: asks pi 0.73.1's own picker-search functions (and JavaScript itself) for answers.
//
// Usage: node pi_search_oracle.mjs < cases.json > results.json
//
// The input is a JSON array of cases; the output is a JSON array with one result per case, in
// order. Case kinds:
//   {"op": "match", "query": q, "session": {id, name, allMessagesText, cwd}}
//       -> {"matches": bool, "score": number, "error": string | null}   (matchSession)
//   {"op": "fuzzy", "token": t, "text": x}  -> {"matches": bool, "score": number} (fuzzyMatch)
//   {"op": "filter", "query": q, "sort": "recent" | "relevance" | "threaded",
//    "nameFilter": "all" | "named", "sessions": [{id, name, allMessagesText, cwd, modified}]}
//       -> [id, ...]   (filterAndSortSessions; `modified` is epoch ms)
//   {"op": "regex", "pattern": p, "text": x} -> {"error": bool, "index": number}
//       (new RegExp(p, "i") and text.search)
//   {"op": "lower", "text": x} -> string (toLowerCase)
//
// pi's package directory (the folder holding its package.json) comes from
// $PI_ORACLE_PACKAGE_DIR. The search module is not among the package's public exports, so it is
// imported by file URL; pi-tui (fuzzyMatch) is found next to it the way node would find it.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const packageDir = process.env.PI_ORACLE_PACKAGE_DIR;
if (!packageDir) fail("PI_ORACLE_PACKAGE_DIR is not set");

const searchFile = join(
  resolve(packageDir),
  "dist/modes/interactive/components/session-selector-search.js",
);
if (!existsSync(searchFile)) fail(`not found: ${searchFile}`);

function findPiTui(start) {
  // Node's lookup: node_modules of the package itself, then of every parent directory.
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, "node_modules", "@mariozechner", "pi-tui");
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

const tuiDir = findPiTui(packageDir);
if (!tuiDir) fail("@mariozechner/pi-tui not found next to the pi package");
const tuiEntry = JSON.parse(readFileSync(join(tuiDir, "package.json"), "utf8"));
const tuiMain = tuiEntry.exports?.["."]?.import ?? tuiEntry.exports?.["."]?.default ?? tuiEntry.main;

const search = await import(pathToFileURL(searchFile).href);
const tui = await import(pathToFileURL(join(tuiDir, tuiMain)).href);
if (typeof search.matchSession !== "function" || typeof tui.fuzzyMatch !== "function") {
  fail("pi's search functions were not found where expected");
}

function toSession(raw) {
  return {
    path: `/oracle/${raw.id}.jsonl`,
    id: raw.id,
    name: raw.name ?? undefined,
    allMessagesText: raw.allMessagesText,
    cwd: raw.cwd,
    modified: new Date(raw.modified ?? 0),
  };
}

function run(c) {
  switch (c.op) {
    case "match": {
      const parsed = search.parseSearchQuery(c.query);
      const res = search.matchSession(toSession(c.session), parsed);
      return { matches: res.matches, score: res.score, error: parsed.error ?? null };
    }
    case "fuzzy": {
      const res = tui.fuzzyMatch(c.token, c.text);
      return { matches: res.matches, score: res.score };
    }
    case "filter": {
      const sessions = c.sessions.map(toSession);
      return search
        .filterAndSortSessions(sessions, c.query, c.sort, c.nameFilter)
        .map((s) => s.id);
    }
    case "regex": {
      let re;
      try {
        re = new RegExp(c.pattern, "i");
      } catch {
        return { error: true, index: -1 };
      }
      return { error: false, index: c.text.search(re) };
    }
    case "lower":
      return c.text.toLowerCase();
    default:
      throw new Error(`unknown op ${c.op}`);
  }
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
process.stdout.write(JSON.stringify(cases.map(run)));
