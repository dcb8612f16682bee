import type { BrowseRow } from "@/lib/ledger/browse.ts";

// The browser's filtered set as CSV or NDJSON. CSV cells are quoted per RFC 4180, and cells that a spreadsheet
// would run as a formula (leading = + - @) are prefixed with a quote so an exported file cannot execute anything.

export const EXPORT_COLUMNS = [
  "trajectory_id",
  "run_id",
  "step",
  "ticket_id",
  "group_id",
  "category",
  "status",
  "source",
  "reward",
  "raw_reward",
  "trained_reward",
  "outcome",
  "policy",
  "evidence",
  "efficiency",
  "communication",
  "deciding_guardrail",
  "guardrails",
  "capped",
  "handoff",
  "tool_steps",
  "sampled",
  "reviewed",
] as const;

function rowValues(r: BrowseRow): unknown[] {
  return [
    r.trajectoryId,
    r.runId,
    r.step,
    r.ticketId,
    r.groupId,
    r.category,
    r.status,
    r.source,
    r.reward,
    r.rawReward,
    r.trainedReward,
    r.outcome,
    r.policy,
    r.evidence,
    r.efficiency,
    r.communication,
    r.decidingGuardrail,
    r.guardrails.join(" "),
    r.capped,
    r.handoff,
    r.toolSteps,
    r.sampled,
    r.reviewed,
  ];
}

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvHeader(): string {
  return EXPORT_COLUMNS.join(",") + "\n";
}

export function csvLine(r: BrowseRow): string {
  return rowValues(r).map(csvCell).join(",") + "\n";
}

export function ndjsonLine(r: BrowseRow): string {
  const v = rowValues(r);
  return (
    JSON.stringify(Object.fromEntries(EXPORT_COLUMNS.map((c, i) => [c, c === "guardrails" ? r.guardrails : v[i]]))) +
    "\n"
  );
}
