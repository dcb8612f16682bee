// SQL fragments shared by every clustering read and the export, so that "who is in a cluster" is written once.
// Each fragment reads the ledger as `l`. The population is read through ledger_clusters_idx and the blind spot
// through ledger_handoffs_idx ⋈ rollouts_no_writes_idx (migration 005): the predicates below repeat those indexes'
// WHERE clauses literally, because the planner only uses a partial index whose predicate it can prove.
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { ClusterKey } from "@/lib/clusters/keys.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";
import { guardrailMask } from "@/lib/verifier/guardrail-mask.ts";

/**
 * The level-1 key of a ledger row: the deciding guardrail, or "weakest:<sub-score>" for the lowest of the five
 * (ties in verifier.md order: outcome, policy, evidence, efficiency, communication; least() skips nulls), or
 * "weakest:unknown" when the entry has no sub-scores (an external record). Mirrors keys.ts levelOneKey.
 */
export const KEY_SQL = Prisma.sql`coalesce(l.deciding_guardrail,
  case least(l.outcome, l.policy, l.evidence, l.efficiency, l.communication)
    when l.outcome then 'weakest:outcome' when l.policy then 'weakest:policy' when l.evidence then 'weakest:evidence'
    when l.efficiency then 'weakest:efficiency' when l.communication then 'weakest:communication'
    else 'weakest:unknown' end)`;

/** raw_reward − reward: what the cap took away (0 for an external record without a raw reward). */
export const REMOVED_SQL = Prisma.sql`(coalesce(l.raw_reward, l.reward) - l.reward)`;

/** A threshold as an SQL literal. It is a zod-checked number in (0, 1], so inlining it is safe, and a literal lets
 * the planner prove `reward < 0.9` (the partial index's predicate) from it. */
export function thresholdLiteral(t: number): Prisma.Sql {
  if (!(Number.isFinite(t) && t > 0 && t <= 1)) throw new RangeError(`threshold must be in (0, 1], got ${t}`);
  return Prisma.raw(String(t));
}

function stepWindow(w: ClusterWindow): Prisma.Sql {
  const parts: Prisma.Sql[] = [];
  if (w.from !== undefined) parts.push(Prisma.sql`and l.step >= ${w.from}`);
  if (w.to !== undefined) parts.push(Prisma.sql`and l.step <= ${w.to}`);
  return parts.length ? Prisma.join(parts, " ") : Prisma.empty;
}

/** Current entries of the run's window whose reward is below the threshold. */
export function populationWhere(w: ClusterWindow): Prisma.Sql {
  return Prisma.sql`l.run_id = ${w.runId} and l.is_current and l.reward < ${thresholdLiteral(w.threshold)} ${stepWindow(w)}`;
}

/**
 * Current hand-offs of the window that triggered no guardrail, whose rollout's sandbox recorded no write, and whose
 * outcome the verifier still credits (> 0) — whatever their reward: the verifier cannot see them, so they are a
 * standing cluster. A case that allows a hand-off gives such a rollout the config's handoff_outcome (0.45); once
 * its spec says `handoff: "not_allowed"` (the bulk fix) or requires a write, the same rollout scores outcome 0 with
 * handoff_instead_of_resolution, which the verifier does see, so it leaves the cluster. Entries without a stored
 * rollout (external records) cannot show "no write", and entries without sub-scores (errors) have no outcome:
 * neither is ever in it. The predicate is ledger_handoffs_idx's (migration 023).
 */
export function blindSpotWhere(w: ClusterWindow): Prisma.Sql {
  return Prisma.sql`l.run_id = ${w.runId} and l.is_current and l.handoff and l.guardrail_mask = 0 and l.outcome > 0 ${stepWindow(w)}
    and exists (select 1 from rollouts r where r.run_id = ${w.runId} and r.id = l.rollout_id
                and (r.sandbox -> 'writes') = '[]'::jsonb)`;
}

function hasSignature(sig: { code: string; tool: string | null; field: string | null }): Prisma.Sql {
  return Prisma.sql`exists (select 1 from ledger_reasons r where r.run_id = l.run_id and r.ledger_id = l.id and r.code = ${sig.code}
    and r.tool is not distinct from ${sig.tool}::text and r.field is not distinct from ${sig.field}::text)`;
}

/** The members of any cluster, exactly (the counts of level 2 and 3 may be sampled estimates; this never is). */
export function memberWhere(w: ClusterWindow, k: ClusterKey): Prisma.Sql {
  switch (k.kind) {
    case "blind_spot":
      return blindSpotWhere(w);
    case "cofired":
      return Prisma.sql`${populationWhere(w)} and l.guardrail_mask = ${guardrailMask(k.codes)}`;
    case "level1":
      return Prisma.sql`${populationWhere(w)} and ${KEY_SQL} = ${k.l1}`;
    case "level2":
      return Prisma.sql`${populationWhere(w)} and ${KEY_SQL} = ${k.l1} and ${hasSignature(k.sig)}`;
    case "level3":
      return Prisma.sql`${populationWhere(w)} and ${KEY_SQL} = ${k.l1} and l.category = ${k.category} and ${hasSignature(k.sig)}`;
  }
}

/** Bin of a step: 1-based index into the bins whose first steps are `edges` (0 for a step before the first). */
export function binSql(edges: readonly number[]): Prisma.Sql {
  return edges.length ? Prisma.sql`width_bucket(l.step, ${edges}::int[])` : Prisma.sql`1`;
}
