// Apply closes the loop (docs/audit.md "From a dispute to a fixed spec"): a case revision saved and re-scored from
// the workbench or `verity case revise` is the fix of the case's open spec-wrong defects (in every run: the case is
// shared by them), which are then verified where their items now agree with their reviews; defects fixed earlier
// whose items this re-score brought into agreement are verified too.
import type pg from "pg";
import type { ActivityActor } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import { applyCaseRevision, type ApplyResult, type CaseRevisionInput } from "@/lib/cases/mutations.ts";
import { fixSpecDefects, verifyDefects } from "@/lib/defects/mutations.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

export type DefectOutcome = { runId: string; id: bigint; status: "fixed" | "verified" };

export type FixResult =
  | (Extract<ApplyResult, { ok: true }> & { defects: DefectOutcome[]; verifiedEarlier: number })
  | Extract<ApplyResult, { ok: false }>;

export async function applyCaseFix(
  pool: pg.Pool,
  input: Omit<CaseRevisionInput, "actor"> & { actor: ActivityActor },
  client: PrismaClient = db(),
): Promise<FixResult> {
  const a = input.actor;
  const r = await applyCaseRevision(pool, {
    ...input,
    actor: "userId" in a ? { userId: a.userId } : { label: "label" in a ? a.label : a.name },
  });
  if (!r.ok) return r;
  // An unchanged draft is no new version: nothing it could be the fix of.
  const defects =
    r.status === "created" ? await fixSpecDefects({ ticketId: input.ticketId, version: r.version }, a, client) : [];
  let verifiedEarlier = 0;
  for (const runId of r.rescore.runs) verifiedEarlier += (await verifyDefects({ runId }, client)).length;
  return { ...r, defects, verifiedEarlier };
}
