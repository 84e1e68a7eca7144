// Interop oracle: asks pi's own SessionManager what it reads from session files.
//
// Usage:
//   node pi_oracle.mjs version
//   node pi_oracle.mjs report FILE...        -> one JSON object per file (JSON lines)
//   node pi_oracle.mjs list AGENT_DIR [CWD]  -> one JSON object per listed session (JSON lines)
//
// pi is loaded from the package directory in $PI_ORACLE_PACKAGE_DIR (the folder holding pi's
// package.json), or by its bare name if that variable is unset. PI_ORACLE_IMPORT=public forces
// the package's public entry point, PI_ORACLE_IMPORT=fast forbids it (see loadPi): pi 1.6.0's
// entry point needs node >= 22.19, its session modules run on node 20.
//
// pi's SessionManager writes while it reads (it migrates and rewrites v1/v2 files, writes a header
// into empty or invalid files, creates session directories while listing), so every file or agent
// dir is copied into a private temp dir first and only the copy is handed to pi.

import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const PACKAGE_NAME = "@mariozechner/pi-coding-agent";

function packageDir() {
  const dir = process.env.PI_ORACLE_PACKAGE_DIR;
  return dir ? resolve(dir) : null;
}

// The package is ESM-only ("exports": {".": {"import": "./dist/index.js"}}) and lives outside this
// script's node_modules lookup path, so its entry point is resolved by hand and imported by URL.
function publicEntryUrl(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const dot = pkg.exports?.["."];
  const entry = (typeof dot === "string" ? dot : (dot?.import ?? dot?.default)) ?? pkg.main;
  if (typeof entry !== "string") {
    throw new Error(`cannot find the entry point of ${dir}`);
  }
  return pathToFileURL(join(dir, entry)).href;
}

// The public entry re-exports SessionManager and convertToLlm from these two modules but also
// loads the whole TUI (about 1.5 s); importing the two modules alone takes about 50 ms. The
// `version` command checks that both routes give the very same functions.
const FAST_MODULES = {
  SessionManager: "dist/core/session-manager.js",
  convertToLlm: "dist/core/messages.js",
};

async function loadFast(dir) {
  const api = {};
  for (const [name, file] of Object.entries(FAST_MODULES)) {
    const mod = await import(pathToFileURL(join(dir, file)).href);
    if (typeof mod[name] !== "function") throw new Error(`${file} does not export ${name}`);
    api[name] = mod[name];
  }
  return api;
}

async function loadPublic() {
  const dir = packageDir();
  return dir === null ? import(PACKAGE_NAME) : import(publicEntryUrl(dir));
}

async function loadPi() {
  const dir = packageDir();
  if (process.env.PI_ORACLE_IMPORT === "fast") {
    if (dir === null) throw new Error("PI_ORACLE_IMPORT=fast needs PI_ORACLE_PACKAGE_DIR");
    return loadFast(dir);
  }
  if (dir !== null && process.env.PI_ORACLE_IMPORT !== "public") {
    const fast = Object.values(FAST_MODULES).every((file) => existsSync(join(dir, file)));
    if (fast) return loadFast(dir);
  }
  return loadPublic();
}

async function cmdVersion() {
  const dir = packageDir();
  const onlyFast = process.env.PI_ORACLE_IMPORT === "fast";
  const pub = onlyFast ? null : await loadPublic();
  const info = {
    package: PACKAGE_NAME,
    version: null,
    node: process.version,
    publicExports:
      pub !== null && ["SessionManager", "convertToLlm"].every((n) => typeof pub[n] === "function"),
    fastExports: false,
    fastImportMatches: false,
  };
  if (dir !== null) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    info.package = pkg.name;
    info.version = pkg.version;
    try {
      const fast = await loadFast(dir);
      info.fastExports = true;
      info.fastImportMatches =
        pub !== null && Object.keys(FAST_MODULES).every((n) => fast[n] === pub[n]);
    } catch {
      info.fastExports = false;
    }
  }
  write(info);
}

function sha256(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function contentShape(content) {
  if (typeof content === "string") return "string";
  if (Array.isArray(content)) return content.map((block) => block?.type ?? null);
  return null;
}

function toolNames(tools) {
  return Array.isArray(tools) ? tools.map((t) => (typeof t === "string" ? t : (t?.name ?? null))) : null;
}

// A small, stable digest of one context message: enough to compare roles, order and the
// fields that identify each message, without dumping whole payloads.
function summarizeMessage(m) {
  const out = { role: m?.role ?? null, timestamp: m?.timestamp ?? null };
  switch (m?.role) {
    case "user":
      out.content = contentShape(m.content);
      break;
    case "assistant":
      out.provider = m.provider ?? null;
      out.model = m.model ?? null;
      out.stopReason = m.stopReason ?? null;
      out.content = contentShape(m.content);
      break;
    case "toolResult":
      out.toolCallId = m.toolCallId ?? null;
      out.toolName = m.toolName ?? null;
      out.isError = m.isError ?? null;
      break;
    case "branchSummary":
      out.fromId = m.fromId ?? null;
      out.summarySha256 = typeof m.summary === "string" ? sha256(m.summary) : null;
      break;
    case "compactionSummary":
      out.tokensBefore = m.tokensBefore ?? null;
      out.summarySha256 = typeof m.summary === "string" ? sha256(m.summary) : null;
      break;
    case "custom":
      out.customType = m.customType ?? null;
      out.display = m.display ?? null;
      out.content = contentShape(m.content);
      break;
    case "bashExecution":
      out.command = m.command ?? null;
      out.exitCode = m.exitCode ?? null;
      // pi tests it for truthiness (convertToLlm); absent means false.
      out.excludeFromContext = Boolean(m.excludeFromContext);
      break;
    case "system":
      // pi 1.x: the prompt's sections and the tools it adds, by name (the digest the
      // pi-written-1.6.0 corpus recorded; it leaves toolsRemoved out).
      out.sections = m.sections && typeof m.sections === "object" ? Object.keys(m.sections) : null;
      if (m.toolsAdded !== undefined) out.toolsAdded = toolNames(m.toolsAdded);
      break;
    default:
      out.keys = m && typeof m === "object" ? Object.keys(m).sort() : [];
  }
  return out;
}

function entryTypeCounts(entries) {
  const counts = {};
  for (const e of entries) {
    const key = e.type === "message" ? `message/${e.message?.role}` : String(e.type);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

// getBranch() and buildSessionContext() loop forever when the leaf's parent chain has a cycle;
// walk the chain the way pi does (last occurrence of an id wins) and stop at the first repeat.
function leafChainHasCycle(entries, leafId) {
  const byId = new Map();
  for (const e of entries) byId.set(e.id, e);
  const seen = new Set();
  let current = leafId ? byId.get(leafId) : undefined;
  while (current) {
    if (seen.has(current)) return true;
    seen.add(current);
    current = current.parentId ? byId.get(current.parentId) : undefined;
  }
  return false;
}

function treeReport(roots) {
  const preorder = [];
  const labels = {};
  const labelTimestamps = {};
  // Iterative depth-first walk: sessions can be thousands of entries deep.
  const stack = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push([roots[i], 0]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    const id = node.entry.id;
    preorder.push([id, depth]);
    if (node.label !== undefined) labels[id] = node.label;
    if (node.labelTimestamp !== undefined) labelTimestamps[id] = node.labelTimestamp;
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], depth + 1]);
  }
  return { preorder, labels, labelTimestamps };
}

// Copy one file so that pi may rewrite the copy (the source can be read-only) and keep its mtime,
// which pi's listing falls back to for `modified`.
function copyFile(src, dst) {
  const st = statSync(src);
  copyFileSync(src, dst);
  chmodSync(dst, 0o644);
  utimesSync(dst, st.atime, st.mtime);
}

// Recursive copy following symlinks; directories get write permission so pi can create its
// per-cwd folders in the copy. Entries that are neither files nor directories are skipped.
function copyTree(src, dst) {
  mkdirSync(dst);
  chmodSync(dst, 0o755);
  for (const name of readdirSync(src)) {
    const from = join(src, name);
    let st;
    try {
      st = statSync(from);
    } catch {
      continue; // dangling symlink: pi could not read it either
    }
    if (st.isDirectory()) copyTree(from, join(dst, name));
    else if (st.isFile()) copyFile(from, join(dst, name));
  }
}

function reportOne(pi, original, workDir) {
  const copy = join(workDir, basename(original));
  copyFile(original, copy);
  const before = readFileSync(copy);

  const sm = pi.SessionManager.open(copy);
  const after = existsSync(copy) ? readFileSync(copy) : null;
  const entries = sm.getEntries();
  const leafId = sm.getLeafId();
  const roots = sm.getTree();
  const tree = treeReport(roots);
  const out = {
    path: original,
    sessionId: sm.getSessionId(),
    cwd: sm.getCwd(),
    name: sm.getSessionName() ?? null,
    leafId,
    entryCount: entries.length,
    entryTypeCounts: entryTypeCounts(entries),
    rootIds: roots.map((n) => n.entry.id),
    treePreorder: tree.preorder,
    labels: tree.labels,
    labelTimestamps: tree.labelTimestamps,
    header: sm.getHeader(),
    openRewrote: after === null || !before.equals(after),
    pathCycle: leafChainHasCycle(entries, leafId),
    branchIds: null,
    context: null,
    llm: null,
  };
  if (!out.pathCycle) {
    out.branchIds = sm.getBranch().map((e) => e.id);
    const ctx = sm.buildSessionContext();
    out.context = {
      messageCount: ctx.messages.length,
      roles: ctx.messages.map((m) => m.role),
      messages: ctx.messages.map(summarizeMessage),
      model: ctx.model ?? null,
      thinkingLevel: ctx.thinkingLevel ?? null,
    };
    const llm = pi.convertToLlm(ctx.messages);
    out.llm = { messageCount: llm.length, roles: llm.map((m) => m.role) };
    // pi 1.x only: the compaction-aware entry list and what each entry contributes.
    if (typeof sm.buildContextEntries === "function") {
      out.contextEntryIds = sm.buildContextEntries().map((e) => e.id);
    }
    if (typeof sm.buildSessionProjection === "function") {
      out.projection = sm
        .buildSessionProjection()
        .entries.map((p) => [p.sourceEntry.id, p.messages.length]);
    }
  }
  return out;
}

function errorText(err) {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function write(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

async function cmdReport(files) {
  const pi = await loadPi();
  const root = mkdtempSync(join(tmpdir(), "pi-oracle-"));
  // open() does not need an agent dir; point it into the private copy so that pi can never
  // touch the user's real ~/.pi whatever it decides to do.
  process.env.PI_CODING_AGENT_DIR = join(root, "agent");
  try {
    files.forEach((file, i) => {
      const original = resolve(file);
      // One folder per file: pi derives its session dir from the file's parent and may write
      // there, and two inputs may share a base name.
      const workDir = join(root, String(i));
      mkdirSync(workDir);
      try {
        if (!statSync(original).isFile()) throw new Error(`not a regular file: ${original}`);
        write(reportOne(pi, original, workDir));
      } catch (err) {
        write({ path: original, error: errorText(err) });
      }
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function isoOrNull(date) {
  return date instanceof Date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
}

async function cmdList(agentDirArg, cwd) {
  const pi = await loadPi();
  const agentDir = resolve(agentDirArg);
  const root = mkdtempSync(join(tmpdir(), "pi-oracle-"));
  try {
    const copyAgent = join(root, "agent");
    mkdirSync(copyAgent);
    const sessions = join(agentDir, "sessions");
    if (existsSync(sessions)) {
      copyTree(sessions, join(copyAgent, "sessions"));
    }
    process.env.PI_CODING_AGENT_DIR = copyAgent;
    const infos =
      cwd === undefined ? await pi.SessionManager.listAll() : await pi.SessionManager.list(cwd);
    for (const info of infos) {
      // Report paths as they are in the original agent dir, not in the private copy.
      const rel = relative(copyAgent, info.path);
      write({
        path: join(agentDir, rel),
        id: info.id,
        cwd: info.cwd,
        name: info.name ?? null,
        parentSessionPath: info.parentSessionPath ?? null,
        created: isoOrNull(info.created),
        modified: isoOrNull(info.modified),
        messageCount: info.messageCount,
        firstMessage: info.firstMessage,
        allMessagesTextLength: info.allMessagesText.length,
        allMessagesTextSha256: sha256(info.allMessagesText),
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function usage() {
  process.stderr.write(
    "usage: node pi_oracle.mjs version | report FILE... | list AGENT_DIR [CWD]\n",
  );
  process.exit(2);
}

const [command, ...args] = process.argv.slice(2);
if (command === "version") {
  await cmdVersion();
} else if (command === "report") {
  await cmdReport(args);
} else if (command === "list" && (args.length === 1 || args.length === 2)) {
  await cmdList(args[0], args[1]);
} else {
  usage();
}
