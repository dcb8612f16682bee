"use server";
// A lead's verdict on a pair's inversion, from the side-by-side view. The verdict is the ticket audit's
// (lib/audit/adjudication-mutations.ts: append-only, superseding, logged, opening a defect for a wrong spec or rule),
// keyed on the pair's audit item like a ticket dispute's.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { adjudicationInput, type FormState } from "@/lib/audit/schema.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { isPairItem } from "@/lib/pairwise/data.ts";

/** Records the verdict on a pair and reopens its view, which shows the verdict and the defect it opened. */
export async function adjudicatePairAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("adjudicate");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = adjudicationInput.safeParse(Object.fromEntries([...form.keys()].map((k) => [k, form.get(k)])));
  if (!parsed.success)
    return {
      ok: false,
      fieldErrors: z.flattenError(parsed.error).fieldErrors,
      message: "Fix the fields marked below.",
    };
  if (!(await isPairItem(parsed.data.itemId)))
    return { ok: false, message: "No such pair: ticket disputes are settled on the adjudication page." };
  const r = await recordAdjudication(parsed.data, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/agreement/pairwise");
  redirect(`/agreement/pairwise/${parsed.data.itemId}?recorded=1`);
}
