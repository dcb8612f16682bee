// Canonical JSON: object keys sorted (by UTF-16 code units, as Array.prototype.sort does), no white space.
// Two values that differ only in key order serialise to the same string, so hashes of them agree.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    // undefined and functions have no JSON form; inside objects they are skipped below, at the top they are null.
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  }
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    if (obj[key] === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(obj[key])}`);
  }
  return `{${parts.join(",")}}`;
}
