// Canonical JSON for content hashes: object keys sorted, no white space — two values that differ only in key order
// give the same text. Same output as lib/verifier/canonical-json.ts for JSON data, about twice as fast: ingest
// hashes every ledger entry, so this sits on the hot path. Keys are sorted only when they are not already, and
// quoted keys are memoised (records repeat the same few dozen keys).

const quoted = new Map<string, string>();

/** JSON text already in canonical form, spliced in as is (so a part serialised once is not serialised again). */
export class CanonicalText {
  constructor(readonly text: string) {}
}

function quote(key: string): string {
  let q = quoted.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quoted.size < 10_000) quoted.set(key, q);
  }
  return q;
}

function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) return keys.sort();
  }
  return keys;
}

export function canonicalJsonFast(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object": {
      if (value === null) return "null";
      if (value instanceof CanonicalText) return value.text;
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i) out += ",";
          const v = value[i];
          out += v === undefined || typeof v === "function" || typeof v === "symbol" ? "null" : canonicalJsonFast(v);
        }
        return out + "]";
      }
      let out = "{";
      let first = true;
      const obj = value as Record<string, unknown>;
      for (const key of sortedKeys(obj)) {
        const v = obj[key];
        if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
        out += (first ? "" : ",") + quote(key) + ":" + canonicalJsonFast(v);
        first = false;
      }
      return out + "}";
    }
    default:
      return "null";
  }
}
