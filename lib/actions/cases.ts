"use server";
// The spec workbench's two actions, leads and admins only (policy "cases.revise", checked here on the server):
// "Try it" (a dry run of the draft over the ticket's rollouts) and "Apply" (store the version and re-score).
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { collectDiffs, dryRunCase, type DryRunTotals, type RolloutDiff } from "@/lib/cases/dry-run.ts";
import { applyCaseFix } from "@/lib/cases/apply-fix.ts";
import { answeredAdjudication } from "@/lib/cases/data.ts";
import { MAX_SPEC_CHARS, parseDraftText, reviseReasonSchema } from "@/lib/cases/schema.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import type { Issue } from "@/lib/verifier/schema.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

/** Rows of a dry run sent to the page: the selected rollout, then changed ones first; the totals cover them all. */
const MAX_ROWS = 200;

export type TryState = {
  ok?: boolean;
  message?: string;
  issues?: Issue[];
  totals?: DryRunTotals;
  rows?: RolloutDiff[];
  truncated?: boolean;
};
export type ApplyState = { ok?: boolean; message?: string; issues?: Issue[] };

const formSchema = z.object({
  ticketId: z.string().min(1).max(200),
  spec: z.string().max(MAX_SPEC_CHARS, `verifier_spec: at most ${MAX_SPEC_CHARS.toLocaleString("en-US")} characters`),
  runId: z
    .string()
    .max(200)
    .transform((s) => s || undefined),
  rollout: z.string().max(20).optional(),
  /** The adjudication the workbench was opened from (the adjudication page's link): the revision answers it. */
  adjudication: z
    .string()
    .regex(/^[1-9][0-9]{0,18}$/, "expected an adjudication id")
    .optional(),
});

function readForm(form: FormData) {
  return formSchema.safeParse({
    ticketId: form.get("ticketId"),
    spec: form.get("spec"),
    runId: form.get("runId") ?? "",
    rollout: (form.get("rollout") as string | null) || undefined,
    adjudication: (form.get("adjudication") as string | null) || undefined,
  });
}

export async function tryDraftAction(_prev: TryState, form: FormData): Promise<TryState> {
  await requireActionUser("cases.revise");
  if (!isForm(form)) return NOT_A_FORM;
  const f = readForm(form);
  if (!f.success) return { ok: false, message: formRefusal(f.error) };
  const spec = parseDraftText(f.data.spec);
  if (!spec.ok) return { ok: false, message: "The spec is not valid JSON.", issues: spec.issues };
  const r = await dryRunCase(bulkPool(), {
    ticketId: f.data.ticketId,
    draft: { spec: spec.spec },
    runId: f.data.runId,
  });
  if (!r) return { ok: false, message: `No case ${f.data.ticketId}.` };
  if (!r.ok) return { ok: false, message: "Fix the spec first.", issues: r.issues };
  const { totals, rows, truncated } = await collectDiffs(r.diffs, { maxRows: MAX_ROWS, selected: f.data.rollout });
  return {
    ok: true,
    message: `${totals.rollouts} rollouts scored under the draft: ${totals.rewardChanged} with another reward; ${totals.nowAgree} reviews would now agree, ${totals.nowDisagree} would now disagree.`,
    totals,
    rows,
    truncated,
  };
}

export async function applyDraftAction(_prev: ApplyState, form: FormData): Promise<ApplyState> {
  const me = await requireActionUser("cases.revise");
  if (!isForm(form)) return NOT_A_FORM;
  const f = readForm(form);
  if (!f.success) return { ok: false, message: formRefusal(f.error) };
  const reason = reviseReasonSchema.safeParse(form.get("reason") ?? "");
  if (!reason.success)
    return { ok: false, message: "Say why.", issues: [{ path: "reason", message: reason.error.issues[0].message }] };
  const spec = parseDraftText(f.data.spec);
  if (!spec.ok) return { ok: false, message: "The spec is not valid JSON.", issues: spec.issues };
  let answers: { adjudicationIds: bigint[] } | undefined;
  if (f.data.adjudication) {
    const a = await answeredAdjudication(bulkPool(), BigInt(f.data.adjudication), f.data.ticketId);
    if (!a.ok) return { ok: false, message: a.error, issues: [{ path: "adjudication", message: a.error }] };
    answers = { adjudicationIds: [a.id] };
  }
  const pool = bulkPool();
  const r = await applyCaseFix(pool, {
    ticketId: f.data.ticketId,
    draft: { spec: spec.spec },
    reason: reason.data,
    authorId: me.id,
    actor: { userId: me.id, email: me.email },
    answers,
    runId: f.data.runId,
    after: afterWrite(pool, { webhook: "background" }),
  });
  if (!r.ok) return { ok: false, message: applyRefusal(r.code, r.issues, f.data.ticketId), issues: r.issues };
  revalidatePath(`/cases/${encodeURIComponent(f.data.ticketId)}`);
  const s = r.rescore;
  const fixed = r.defects.length;
  const verified = r.defects.filter((d) => d.status === "verified").length + r.verifiedEarlier;
  return {
    ok: true,
    message:
      `${r.status === "created" ? `Saved version ${r.version}` : `Unchanged: version ${r.version} is already this spec`}; re-scored ${s.rollouts} rollouts, ${s.reward_changed} with another reward.` +
      (fixed ? ` ${fixed} spec defect${fixed === 1 ? "" : "s"} fixed by v${r.version}` : "") +
      (fixed || verified ? `${fixed ? "," : ""} ${verified} verified (their items now agree).` : ""),
  };
}

function applyRefusal(code: "not_found" | "invalid", issues: Issue[], ticketId: string): string {
  if (code === "invalid") return "Fix the spec first.";
  const run = issues.find((i) => i.path === "run");
  return run ? `Refused: ${run.message}.` : `No case ${ticketId}.`;
}

/** Why the form was refused: the spec's own message when it is too long, else the field named. */
function formRefusal(error: z.ZodError): string {
  const i = error.issues[0];
  return i.path[0] === "spec" ? `${i.message}.` : `The form is incomplete: ${i.path.join(".")}: ${i.message}.`;
}
