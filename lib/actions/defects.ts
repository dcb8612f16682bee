"use server";
// Server action of the defects list: a lead marks a defect fixed by a case version (spec) or a stored verifier
// config (rule). Role-checked (adjudicate: lead, admin); the transition is logged by markDefectFixed.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { defectCause } from "@/lib/defects/data.ts";
import { markDefectFixed } from "@/lib/defects/mutations.ts";
import { markFixedInput } from "@/lib/defects/schema.ts";
import { configHash, parseVerifierConfig } from "@/lib/verifier/config.ts";
import { storedConfigById } from "@/lib/verifier-configs/data.ts";

export type FixFormState = { ok?: boolean; message?: string; fieldErrors?: Record<string, string[] | undefined> };

export async function markDefectFixedAction(_prev: FixFormState, form: FormData): Promise<FixFormState> {
  const me = await requireActionUser("adjudicate");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = markFixedInput.safeParse(Object.fromEntries([...form.keys()].map((k) => [k, form.get(k)])));
  if (!parsed.success)
    return {
      ok: false,
      fieldErrors: z.flattenError(parsed.error).fieldErrors,
      message: "Fix the fields marked below.",
    };
  const { runId, defectId, fixRef, note } = parsed.data;
  const d = await defectCause(runId, defectId);
  if (!d) return { ok: false, message: `No defect #${defectId} in run ${runId}.` };
  let fix;
  if (d.cause === "spec_wrong") {
    const version = Number(fixRef);
    if (!Number.isInteger(version) || version < 1)
      return { ok: false, fieldErrors: { fixRef: ["A case version is a whole number from 1."] } };
    fix = { kind: "case_version" as const, ref: String(version), note };
  } else {
    const id = Number(fixRef);
    const row = await storedConfigById(id);
    if (!row) return { ok: false, fieldErrors: { fixRef: [`No stored verifier config with id ${fixRef}.`] } };
    const c = parseVerifierConfig(row.body);
    if (!c.ok) return { ok: false, fieldErrors: { fixRef: [`Config ${row.name} v${row.version} is not valid.`] } };
    fix = { kind: "config" as const, ref: configHash(c.config), note: note || `${row.name} v${row.version}` };
  }
  const r = await markDefectFixed({ runId, defectId }, fix, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  revalidatePath("/audit/defects");
  return {
    ok: true,
    message:
      r.status === "verified"
        ? `Defect #${defectId} fixed and verified: its items already agree under the fix.`
        : `Defect #${defectId} fixed; it is verified once its items are re-scored and agree.`,
  };
}
