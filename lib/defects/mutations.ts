// Writes of defects: linking an adjudicated item to the defect its cause names (opening it when none is open),
// marking a defect fixed by a case version or a verifier config, and the computed verification after a re-score.
// Every status change is recorded in the activity log in the same transaction.
import { appendActivityLog, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { db, type Db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import { isDefectCause, type DefectCause } from "@/lib/defects/causes.ts";
import { itemsAgreeNow } from "@/lib/defects/agreement-now.ts";
import type { Result } from "@/lib/result.ts";

/**
 * The defect an adjudication points at: for a wrong spec, the case (ticket) of the item; for a wrong rule, the
 * guardrail the lead named (null: a rule outside the guardrails, such as a sub-score). One open defect per run and
 * key: a second adjudication of the same key joins it.
 */
function defectKey(cause: DefectCause, item: { ticketId: string }, guardrail: string | null) {
  return cause === "spec_wrong" ? { ticketId: item.ticketId, guardrail } : { ticketId: null, guardrail };
}

/**
 * Called inside recordAdjudication's transaction (the item row is locked there). A revised verdict first takes
 * its item out of the open defects of the earlier verdict (a defect left with no item is removed: nothing opened
 * it any more); fixed and verified defects keep their items, as history. Then a defect cause links the item to
 * the open defect of its key, creating it. Returns the defect linked, if any.
 */
export async function linkAdjudication(
  tx: Prisma.TransactionClient,
  a: {
    adjudicationId: bigint;
    item: { id: bigint; runId: string; ticketId: string };
    cause: string;
    guardrail: string | null;
    leadId: number;
  },
  actor: ActivityActor,
): Promise<{ defectId: bigint; opened: boolean } | null> {
  const { item } = a;
  const earlier = await tx.defectItem.findMany({
    where: { itemId: item.id, defect: { status: "open" } },
    select: { defectId: true, runId: true },
  });
  const key = isDefectCause(a.cause) ? defectKey(a.cause, item, a.guardrail) : null;
  // Serialises openers of the same key, so two leads adjudicating two items of one case at once share a defect.
  if (key)
    await tx.$executeRaw`select pg_advisory_xact_lock(hashtext(${`defect:${item.runId}:${a.cause}:${key.ticketId}:${key.guardrail}`}))`;
  const target = key
    ? await tx.defect.findFirst({
        where: { runId: item.runId, status: "open", cause: a.cause as DefectCause, ...key },
        orderBy: { id: "asc" },
        select: { id: true },
      })
    : null;
  for (const e of earlier) {
    if (target && e.defectId === target.id) continue;
    await tx.defectItem.delete({
      where: { runId_defectId_itemId: { runId: e.runId, defectId: e.defectId, itemId: item.id } },
    });
    const left = await tx.defectItem.count({ where: { runId: e.runId, defectId: e.defectId } });
    if (left === 0) {
      await tx.defect.delete({ where: { runId_id: { runId: e.runId, id: e.defectId } } });
      await appendActivityLog(
        {
          actor,
          action: "defect.withdraw",
          target: { type: "defect", id: e.defectId },
          details: { run_id: e.runId, item_id: item.id.toString(), adjudication_id: a.adjudicationId.toString() },
        },
        tx,
      );
    }
  }
  if (!key) return null;
  let defectId = target?.id;
  const opened = !defectId;
  if (!defectId) {
    const created = await tx.defect.create({
      data: { runId: item.runId, cause: a.cause as DefectCause, ...key, openedById: a.leadId },
      select: { id: true },
    });
    defectId = created.id;
    await appendActivityLog(
      {
        actor,
        action: "defect.open",
        target: { type: "defect", id: defectId },
        details: {
          run_id: item.runId,
          cause: a.cause,
          ticket_id: key.ticketId,
          guardrail: key.guardrail,
          item_id: item.id.toString(),
          adjudication_id: a.adjudicationId.toString(),
        },
      },
      tx,
    );
  }
  await tx.defectItem.upsert({
    where: { runId_defectId_itemId: { runId: item.runId, defectId, itemId: item.id } },
    create: { runId: item.runId, defectId, itemId: item.id, adjudicationId: a.adjudicationId },
    update: { adjudicationId: a.adjudicationId },
  });
  return { defectId, opened };
}

export type DefectFix =
  { kind: "case_version"; ref: string; note?: string } | { kind: "config"; ref: string; note?: string };

/**
 * open → fixed. A spec defect is fixed by a version of its case; a rule defect by a verifier config (its canonical
 * hash). Refused for a defect that is not open, or a fix of the other kind.
 */
export async function markDefectFixed(
  ref: { runId: string; defectId: bigint },
  fix: DefectFix,
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<Result<{ status: "fixed" | "verified" }>> {
  const r = await client.$transaction(async (tx): Promise<Result> => {
    const [d] = await tx.$queryRaw<{ status: string; cause: string }[]>`
      select status::text as status, cause::text as cause from defects
       where run_id = ${ref.runId} and id = ${ref.defectId} for update`;
    if (!d) return { ok: false, error: `No defect #${ref.defectId} in run ${ref.runId}.` };
    if (d.status !== "open") return { ok: false, error: `Defect #${ref.defectId} is already ${d.status}.` };
    const want = d.cause === "spec_wrong" ? "case_version" : "config";
    if (fix.kind !== want)
      return {
        ok: false,
        error:
          want === "case_version"
            ? "A spec defect is fixed by a version of its case, not by a verifier config."
            : "A rule defect is fixed by a verifier config, not by a case version.",
      };
    await tx.defect.update({
      where: { runId_id: { runId: ref.runId, id: ref.defectId } },
      data: {
        status: "fixed",
        fixKind: fix.kind,
        fixRef: fix.ref,
        fixNote: fix.note ?? "",
        fixedById: "userId" in actor ? actor.userId : null,
        fixedAt: new Date(),
      },
    });
    await appendActivityLog(
      {
        actor,
        action: "defect.fix",
        target: { type: "defect", id: ref.defectId },
        details: { run_id: ref.runId, fix_kind: fix.kind, fix_ref: fix.ref },
      },
      tx,
    );
    return { ok: true };
  });
  if (!r.ok) return r;
  // The fix may already have been re-scored (a case version is applied with its re-score): verify at once.
  const verified = await verifyDefects({ runId: ref.runId, defectId: ref.defectId }, client);
  return { ok: true, status: verified.length ? "verified" : "fixed" };
}

/**
 * fixed → verified, computed: a fixed defect is verified when every item it explains has been re-scored since it
 * was sampled (the rollout's current ledger entry is not the one the item recorded) and every current review of
 * each item now agrees with that entry under the batch's tolerance (lib/review/compare.ts, the rule that sent it to
 * adjudication). Called after every re-score (verity rescore, the console's re-score, a case revision's apply and
 * the bulk fix). Returns the defects it verified.
 */
export async function verifyDefects(
  scope: { runId?: string; defectId?: bigint } = {},
  client: PrismaClient = db(),
): Promise<{ runId: string; id: bigint }[]> {
  const fixed = await client.defect.findMany({
    where: {
      status: "fixed",
      ...(scope.runId !== undefined ? { runId: scope.runId } : {}),
      ...(scope.defectId !== undefined ? { id: scope.defectId } : {}),
    },
    select: { runId: true, id: true, items: { select: { itemId: true } } },
  });
  const verified: { runId: string; id: bigint }[] = [];
  for (const d of fixed) {
    const agree = await itemsAgreeNow(
      d.items.map((i) => i.itemId),
      client,
    );
    if (!agree.every((x) => x.rescored && x.agrees) || agree.length === 0) continue;
    const done = await client.$transaction(async (tx) => {
      const n = await tx.defect.updateMany({
        where: { runId: d.runId, id: d.id, status: "fixed" },
        data: { status: "verified", verifiedAt: new Date() },
      });
      if (n.count === 0) return false;
      await appendActivityLog(
        {
          actor: { label: "system" },
          action: "defect.verify",
          target: { type: "defect", id: d.id },
          details: {
            run_id: d.runId,
            items: agree.map((x) => ({ item_id: x.itemId.toString(), ledger_id: x.ledgerId?.toString() ?? null })),
          },
        },
        tx,
      );
      return true;
    });
    if (done) verified.push({ runId: d.runId, id: d.id });
  }
  return verified;
}

export type { Db };

/**
 * A new version of a case fixes the open spec defects of that case, in every run (the case is shared by them): each
 * is marked fixed by the version, then verified if its items already agree. Called after a revision is applied
 * with its re-score (the workbench, the bulk fix from a cluster). Returns the defects it fixed.
 */
export async function fixSpecDefects(
  a: { ticketId: string; version: number },
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<{ runId: string; id: bigint; status: "fixed" | "verified" }[]> {
  const open = await client.defect.findMany({
    where: { cause: "spec_wrong", ticketId: a.ticketId, status: "open" },
    select: { runId: true, id: true },
  });
  const out: { runId: string; id: bigint; status: "fixed" | "verified" }[] = [];
  for (const d of open) {
    const r = await markDefectFixed(
      { runId: d.runId, defectId: d.id },
      { kind: "case_version", ref: String(a.version) },
      actor,
      client,
    );
    if (r.ok) out.push({ ...d, status: r.status });
  }
  return out;
}
