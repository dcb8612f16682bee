"use server";
// Apply of the bulk fix from a cluster (the clusters page's fix form), leads and admins only (policy cases.revise,
// checked here on the server): every chosen ticket's case gets its next version with the change, its rollouts are
// re-scored (lib/clusters/bulk-fix.ts applyBulkFix), and the fix as a whole is one activity-log entry besides each
// case's own revision and re-score entries.
import { revalidatePath } from "next/cache";
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { reviseReasonSchema } from "@/lib/cases/schema.ts";
import { applyBulkFix, type BulkApply } from "@/lib/clusters/bulk-fix.ts";
import { resolveBulkFixTarget } from "@/lib/clusters/bulk-fix-target.ts";
import { bulkFixFormRecord, bulkFixInput, specChangeOf } from "@/lib/clusters/schema.ts";
import { fieldMessages } from "@/lib/result.ts";
import { describeSpecChange } from "@/lib/clusters/spec-change.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";

export type BulkApplyState = { ok?: boolean; message?: string; applied?: BulkApply };

export async function applyBulkFixAction(_prev: BulkApplyState, form: FormData): Promise<BulkApplyState> {
  const me = await requireActionUser("cases.revise");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = bulkFixInput.safeParse(bulkFixFormRecord(form));
  if (!parsed.success) return { ok: false, message: fieldMessages(parsed.error).join("; ") };
  const reason = reviseReasonSchema.safeParse(form.get("reason") ?? "");
  if (!reason.success) return { ok: false, message: `reason: ${reason.error.issues[0].message}` };
  const client = db();
  const r = await resolveBulkFixTarget(parsed.data, client);
  if (!r.ok) return { ok: false, message: `${r.error.field}: ${r.error.message}` };
  const change = specChangeOf(parsed.data);
  const { target } = r;
  const applied = await applyBulkFix(bulkPool(), client, {
    tickets: target.tickets,
    change,
    reason: reason.data,
    cluster: target.clusterKey,
    authorId: me.id,
    actor: { userId: me.id, email: me.email },
    runId: target.window.runId,
  });
  await appendActivityLog(
    {
      actor: { userId: me.id, email: me.email },
      action: "cluster.bulk_fix",
      target: { type: "cluster", id: `${target.window.runId}:${target.clusterKey}` },
      details: {
        change: describeSpecChange(change),
        reason: reason.data,
        tickets: target.tickets.length,
        versions: applied.versions.filter((v) => v.status === "created").length,
        refused: applied.refused.map((x) => x.ticketId),
        missing: applied.missing,
        rollouts: applied.rollouts,
        reward_changed: applied.rewardChanged,
      },
    },
    client,
  );
  revalidatePath("/clusters");
  const created = applied.versions.filter((v) => v.status === "created").length;
  return {
    ok: applied.refused.length === 0 && applied.missing.length === 0,
    message:
      `Saved ${created} case version${created === 1 ? "" : "s"} (${describeSpecChange(change)}); re-scored ` +
      `${applied.rollouts} rollouts, ${applied.rewardChanged} with another reward.` +
      (applied.refused.length ? ` Refused: ${applied.refused.map((x) => x.ticketId).join(", ")}.` : "") +
      (applied.missing.length ? ` No case: ${applied.missing.join(", ")}.` : ""),
    applied,
  };
}
