// Answers what JavaScript itself says for the cases tests/core/test_js_node.py sends on stdin:
// a JSON array of {fn, arg}; one JSON array of answers on stdout. Values JSON cannot carry are
// sent as {"$": "undefined" | "NaN" | "Infinity" | "-Infinity"}; NaN and infinite answers
// come back the same way.
import { readFileSync } from "node:fs";

const SPECIAL = { undefined: undefined, NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

function decode(value) {
  if (Array.isArray(value)) return value.map(decode);
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === "$") return SPECIAL[value.$];
    return Object.fromEntries(keys.map((k) => [k, decode(value[k])]));
  }
  return value;
}

function encode(value) {
  if (typeof value !== "number" || Number.isFinite(value)) return value;
  return { $: Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity" };
}

const FUNCTIONS = {
  string: (v) => String(v),
  join: (v) => v.join(","),
  truthy: (v) => Boolean(v),
  label: (v) => (v ? String(v) : null),
  number: (v) => Number(v),
  jsonNumber: (v) => JSON.stringify(v),
  trim: (v) => v.trim(),
  length: (v) => v.length,
  lower: (v) => v.toLowerCase(),
  upper: (v) => v.toUpperCase(),
  sliceTo: ([text, n]) => text.slice(0, n),
  sessionName: (v) => v.replace(/[\r\n]+/g, " ").trim(),
  dateParse: (v) => Date.parse(v),
  dateOf: (v) => new Date(v).getTime(),
  isoString: (v) => new Date(v).toISOString(),
};

const cases = JSON.parse(readFileSync(0, "utf8"));
const answers = cases.map(({ fn, arg }) => encode(FUNCTIONS[fn](decode(arg))));
process.stdout.write(JSON.stringify(answers));
