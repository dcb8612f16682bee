// Baseline kept on purpose: the reads as they were before the scale fixes of 2026-12-01 (docs/benchmarks.md "Scale"),
// kept for bench/scale.ts and bench/agreement.ts to measure before and after in the same run: the load of a shared
// machine then cancels out of the comparison. Not product code: nothing outside bench/ imports it.
import type { Db } from "@/lib/db/client.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { loadAgreementItemsPrisma } from "@/lib/testing/agreement-items-prisma.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { ledgerSelect } from "@/lib/review/data.ts";
import { DEFAULT_CONFIG } from "@/lib/verifier/config.ts";

/** The detail's reads before: trajectory → entry → rollout → registry, then case and history (five deep). */
export async function loadTrajectoryDetailBefore(trajectoryId: string) {
  const run = await readDb().trajectory.findUnique({ where: { trajectoryId }, select: { runId: true } });
  if (!run) return null;
  const runId = run.runId;
  const entry = await readDb().ledgerEntry.findFirst({
    where: { runId, trajectoryId, isCurrent: true },
    include: { rollout: { include: { registry: true } } },
  });
  if (!entry) return null;
  const [caseDoc, history] = await Promise.all([
    readDb().case.findUnique({ where: { ticketId: entry.ticketId } }),
    readDb().ledgerEntry.findMany({
      where: { runId, trajectoryId },
      orderBy: { id: "asc" },
      select: { id: true, createdAt: true, status: true, reward: true, isCurrent: true, guardrailMask: true },
    }),
  ]);
  return {
    entry,
    caseDoc,
    weights: DEFAULT_CONFIG.weights,
    history: history.map((h) => ({ ...h, guardrails: codesOfMask(h.guardrailMask) })),
  };
}

/**
 * The agreement report's reads before: the Prisma loader plus the lookup it used to make of each item's current entry,
 * by rollout id alone (no index leads with rollout_id, so the run's ledger partition was read whole).
 */
export async function loadAgreementItemsBefore(f: AgreementFilter) {
  const items = await loadAgreementItemsPrisma(f);
  const byRun = new Map<string, bigint[]>();
  const rows = await readDb().auditItem.findMany({
    where: { id: { in: items.map((i) => i.item.itemId) } },
    select: { runId: true, rolloutId: true },
  });
  for (const r of rows) byRun.set(r.runId, [...(byRun.get(r.runId) ?? []), r.rolloutId]);
  for (const [runId, rolloutIds] of byRun)
    await readDb().ledgerEntry.findMany({
      where: { runId, isCurrent: true, rolloutId: { in: rolloutIds } },
      select: { ...ledgerSelect, rolloutId: true },
    });
  return items;
}

/** The agreement report's fingerprint before 028 (lib/agreement/cached.ts): each reviewed item's current entry read by
 * one probe of the run's trajectory index, O(items). The new one reads the runs' counts of superseding entries. */
export async function agreementFingerprintBefore(f: AgreementFilter, client: Db = readDb()): Promise<string> {
  const [row] = await client.$queryRaw<{ fp: string | null }[]>`
    with b as (
      select id, tolerance from audit_batches
       where (${f.run ?? null}::text is null or run_id = ${f.run ?? null}::text)
         and (${f.batch ?? null}::int is null or id = ${f.batch ?? null}::int)),
    it as (
      select i.id, i.run_id, i.trajectory_id, i.reviews_done, i.disputed_at
        from audit_items i where i.batch_id in (select id from b))
    select concat_ws('|',
      (select string_agg(id || ':' || tolerance, ',' order by id) from b),
      (select concat_ws(':', count(*), max(id), sum(reviews_done), count(disputed_at), max(disputed_at)) from it),
      (select concat_ws(':', count(*), max(v.id)) from reviews v where v.item_id in (select id from it)),
      (select concat_ws(':', count(*), max(a.id)) from adjudications a where a.item_id in (select id from it)),
      -- one probe of the run's trajectory index per item ("offset 0" keeps the planner from turning the probes into
      -- a hash join over every current entry of the run: 3.6 s instead of 0.1 s at 10,000 items in 3 M entries)
      (select md5(string_agg(l.id::text, ',' order by it.id))
         from it cross join lateral (
           select c.id from ledger c
            where c.run_id = it.run_id and c.trajectory_id = it.trajectory_id and c.is_current offset 0) l),
      (select concat_ws(':', count(*), sum(version)) from cases)) as fp`;
  return row?.fp ?? "";
}
