// A lead's verdict on a disputed item. Append-only (a database trigger refuses UPDATE and DELETE): a revised
// verdict is a new row superseding the current one. Logged in the activity log in the same transaction. A verdict of
// "spec wrong" or "verifier rule wrong" links the item to a defect in the same transaction (lib/defects/mutations.ts).
import type { AdjudicationInput } from "@/lib/audit/schema.ts";
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import { linkAdjudication } from "@/lib/defects/mutations.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { Result } from "@/lib/result.ts";

/**
 * Records the verdict. The item row is locked first, so two leads settling the same item at once produce a chain
 * (the second supersedes the first), never two current verdicts. Only reviewed items can be adjudicated.
 */
export async function recordAdjudication(
  input: AdjudicationInput,
  actor: { userId: number; email: string },
  client: PrismaClient = db(),
): Promise<Result<{ adjudicationId: bigint; supersedesId: bigint | null; defectId: bigint | null }>> {
  return client.$transaction(async (tx) => {
    const [item] = await tx.$queryRaw<{ id: bigint; reviews_done: number; run_id: string; ticket_id: string }[]>`
      select id, reviews_done, run_id, ticket_id from audit_items where id = ${input.itemId} for update`;
    if (!item) return { ok: false, error: "No such item." };
    if (item.reviews_done === 0)
      return { ok: false, error: "This item has no review yet: there is nothing to adjudicate." };
    const current = await tx.adjudication.findFirst({
      where: { itemId: input.itemId, supersededBy: { is: null } },
      select: { id: true },
    });
    const created = await tx.adjudication.create({
      data: {
        itemId: input.itemId,
        leadId: actor.userId,
        cause: input.cause,
        guardrail: input.guardrail ?? null,
        note: input.note,
        supersedesId: current?.id ?? null,
      },
      select: { id: true },
    });
    await appendActivityLog(
      {
        actor,
        action: "adjudication.record",
        target: { type: "audit_item", id: input.itemId },
        details: {
          adjudication_id: created.id.toString(),
          cause: input.cause,
          guardrail: input.guardrail ?? null,
          supersedes_id: current ? current.id.toString() : null,
        },
      },
      tx,
    );
    const defect = await linkAdjudication(
      tx,
      {
        adjudicationId: created.id,
        item: { id: item.id, runId: item.run_id, ticketId: item.ticket_id },
        cause: input.cause,
        guardrail: input.guardrail ?? null,
        leadId: actor.userId,
      },
      actor,
    );
    return {
      ok: true,
      adjudicationId: created.id,
      supersedesId: current?.id ?? null,
      defectId: defect?.defectId ?? null,
    };
  });
}
