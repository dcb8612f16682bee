import { DIMENSIONS } from "@/lib/verifier/codes.ts";

// What changed between two versions of a rollout's ledger entry (a re-score), in words a researcher reads at a
// glance: reward, deciding guardrail, guardrails added or removed, sub-scores, config.

export type Version = {
  reward: number | null;
  decidingGuardrail: string | null;
  guardrails: string[];
  configHash: string | null;
  status: string;
} & Record<(typeof DIMENSIONS)[number], number | null>;

const f = (v: number | null) => (v === null ? "–" : v.toFixed(3));

export function describeChanges(prev: Version, next: Version): string[] {
  const out: string[] = [];
  if (prev.status !== next.status) out.push(`status ${prev.status} → ${next.status}`);
  if (prev.reward !== next.reward) out.push(`reward ${f(prev.reward)} → ${f(next.reward)}`);
  if (prev.decidingGuardrail !== next.decidingGuardrail)
    out.push(`deciding ${prev.decidingGuardrail ?? "none"} → ${next.decidingGuardrail ?? "none"}`);
  const added = next.guardrails.filter((g) => !prev.guardrails.includes(g));
  const removed = prev.guardrails.filter((g) => !next.guardrails.includes(g));
  if (added.length) out.push(`+${added.join(", +")}`);
  if (removed.length) out.push(`−${removed.join(", −")}`);
  for (const d of DIMENSIONS) if (prev[d] !== next[d]) out.push(`${d} ${f(prev[d])} → ${f(next[d])}`);
  if (prev.configHash !== next.configHash) out.push("other config");
  return out.length ? out : ["no change in scores"];
}
