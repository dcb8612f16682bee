/** Formats a reward or sub-score (0..1) with three decimals; null (spec or input error) as an en dash. */
export function fmtScore(v: number | null | undefined): string {
  return v === null || v === undefined ? "–" : v.toFixed(3);
}
export function fmtPct(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || Number.isNaN(v) ? "–" : `${(v * 100).toFixed(digits)}%`;
}
export function fmtInt(v: number | bigint | null | undefined): string {
  return v === null || v === undefined ? "–" : Number(v).toLocaleString("en-US");
}

/** Badge tone of a reward: success (≥ 0.9) good, ≥ 0.5 warn, below bad; no reward neutral. */
export function rewardTone(r: number | null): "good" | "warn" | "bad" | "neutral" {
  if (r === null) return "neutral";
  return r >= 0.9 ? "good" : r >= 0.5 ? "warn" : "bad";
}

/**
 * What a change to a set of codes (guardrails, reasons) added and removed: "+a, b / −c", one side alone when the other
 * is empty, "no change" when both are.
 */
export function fmtSetChange(d: { added: readonly string[]; removed: readonly string[] }): string {
  const parts = [
    ...(d.added.length ? [`+${d.added.join(", ")}`] : []),
    ...(d.removed.length ? [`−${d.removed.join(", ")}`] : []),
  ];
  return parts.length ? parts.join(" / ") : "no change";
}
