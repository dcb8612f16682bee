// The reads as they were before the scale fixes of 2026-12-01 (docs/benchmarks.md "Scale"), kept for bench/scale.ts
// to measure before and after in the same run: the load of a shared machine then cancels out of the comparison.
// Not product code: nothing outside bench/ imports it.
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { codesOfMask } from "@/lib/ingest/rows.ts";
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
 * The agreement report's reads before: today's loader plus the lookup it used to make of each item's current entry,
 * by rollout id alone (no index leads with rollout_id, so the run's ledger partition was read whole).
 */
export async function loadAgreementItemsBefore(f: AgreementFilter) {
  const items = await loadAgreementItems(f);
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
