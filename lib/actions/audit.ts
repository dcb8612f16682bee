"use server";
// Server actions of the shadow audit: lease the next item (annotators), create a batch (leads), record a verdict.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { listDisputes } from "@/lib/audit/adjudication-data.ts";
import { annotationPath, claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { adjudicationInput, batchParamsSchema, batchRef, type FormState } from "@/lib/audit/schema.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { SearchTimeoutError } from "@/lib/search/data.ts";

const invalid = (error: z.ZodError): FormState => ({
  ok: false,
  fieldErrors: z.flattenError(error).fieldErrors,
  message: "Fix the fields marked below.",
});
const formObject = (form: FormData) => Object.fromEntries([...form.keys()].map((k) => [k, form.get(k)]));

/** Leases the next item of a batch (or of any batch) to the annotator and opens it. */
export async function claimNextAction(form: FormData): Promise<void> {
  const me = await requireActionUser("audit.review");
  if (!isForm(form)) redirect("/queue");
  const parsed = batchRef.safeParse(formObject(form));
  const next = await claimNextItem(me.id, { batchId: parsed.success ? (parsed.data.batchId ?? null) : null });
  redirect(next ? annotationPath(next) : "/queue?empty=1");
}

/** Creates the previewed batch (the preview fixed the salt, so the same sample is drawn). */
export async function createBatchAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("audit.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = batchParamsSchema.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  if (!parsed.data.salt) return { ok: false, message: "Preview the batch first (the preview fixes the salt)." };
  const params = { ...parsed.data, salt: parsed.data.salt };
  const actor = { userId: me.id, email: me.email };
  let r;
  try {
    r = params.kind === "pairwise" ? await createPairBatch(params, actor) : await createBatch(params, actor);
  } catch (err) {
    if (!(err instanceof SearchTimeoutError)) throw err;
    return { ok: false, message: `The search in the browser's filters: ${err.message}.` };
  }
  if (!r.ok) return { ok: false, message: r.error, fieldErrors: r.field ? { [r.field]: [r.error] } : undefined };
  revalidatePath("/audit");
  redirect(`/audit?created=${r.batchId}`);
}

/** Records a lead's verdict and moves on to the next pending dispute. */
export async function adjudicateAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("adjudicate");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = adjudicationInput.safeParse(formObject(form));
  if (!parsed.success) return invalid(parsed.error);
  const r = await recordAdjudication(parsed.data, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/audit");
  revalidatePath("/audit/adjudication");
  const [next] = await listDisputes({ pending: true, limit: 1 });
  redirect(
    next
      ? `/audit/adjudication?item=${next.itemId}&recorded=${parsed.data.itemId}`
      : `/audit/adjudication?recorded=${parsed.data.itemId}`,
  );
}
