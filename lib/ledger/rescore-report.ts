// The human-readable account of a re-score: counts, the 0.9 line crossed either way, and the deciding guardrail
// moves as a from → to table. Pure; used by the CLI (the console shows the same numbers).
import type { RescoreSummary } from "@/lib/ledger/store/supersede.ts";

const none = (code: string | null) => code ?? "(none)";

export function formatRescoreReport(s: RescoreSummary): string[] {
  const mean = (x: number | null) => (x === null ? "–" : x.toFixed(4));
  const lines = [
    `re-scored run ${s.run_id} under config ${s.config_hash.slice(0, 19)}…`,
    `  rollouts ${s.rollouts}: ${s.rescored} new entries superseding the old (${s.reward_changed} with another reward), ${s.unchanged} unchanged,` +
      ` ${s.added} scored for the first time, ${s.skipped_external} external kept, ${s.skipped_no_case} without a case`,
    `  success line (reward ≥ 0.9): ${s.crossed_up} crossed up, ${s.crossed_down} crossed down`,
    `  mean reward of the superseded entries → their new entries: ${mean(s.mean_before)} → ${mean(s.mean_after)}`,
  ];
  if (s.transitions.length === 0) {
    lines.push("  deciding guardrail: no changes");
    return lines;
  }
  const w = Math.max(4, ...s.transitions.map((t) => none(t.from).length));
  const w2 = Math.max(2, ...s.transitions.map((t) => none(t.to).length));
  lines.push("  deciding guardrail moves:");
  lines.push(`    ${"from".padEnd(w)}  ${"to".padEnd(w2)}  rollouts`);
  for (const t of s.transitions)
    lines.push(`    ${none(t.from).padEnd(w)}  ${none(t.to).padEnd(w2)}  ${String(t.n).padStart(8)}`);
  return lines;
}
