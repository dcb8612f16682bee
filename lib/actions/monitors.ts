"use server";
// Server actions of the training monitors. Editing a run's alarm thresholds is "audit.manage" (leads and admins):
// watching training health and deciding what counts as an alarm is the lead's job in the domain brief, and it
// changes no ledger number, so it does not need the admin-only "configs.manage".
import { revalidatePath } from "next/cache";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { setRunThresholds } from "@/lib/monitors/mutations.ts";
import { DEFAULT_THRESHOLDS, thresholdsFormSchema, type ThresholdsFormState } from "@/lib/monitors/schema.ts";
import { afterThresholds } from "@/lib/server/after-write.ts";

const formObject = (form: FormData) => Object.fromEntries([...form.keys()].map((k) => [k, form.get(k)]));

/** Saves the thresholds form (or, with `reset`, the defaults) and re-evaluates the run's alarms and gate under them. */
export async function saveThresholdsAction(_prev: ThresholdsFormState, form: FormData): Promise<ThresholdsFormState> {
  const me = await requireActionUser("audit.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const values = formObject(form);
  const reset = values.intent === "reset";
  const parsed = thresholdsFormSchema.safeParse(reset ? { runId: values.runId } : values);
  if (!parsed.success) {
    // Errors of the piped thresholds object have paths ["thresholds", field]: key them by the field either way.
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const field = issue.path[issue.path.length - 1];
      if (typeof field === "string" && field in DEFAULT_THRESHOLDS) (fieldErrors[field] ??= []).push(issue.message);
    }
    const typed = Object.fromEntries(
      Object.keys(DEFAULT_THRESHOLDS).map((k) => [k, typeof values[k] === "string" ? (values[k] as string) : ""]),
    );
    return { ok: false, message: "Fix the fields marked below.", fieldErrors, values: typed };
  }
  const { runId, thresholds } = parsed.data;
  const r = await setRunThresholds(runId, thresholds, { userId: me.id, email: me.email });
  if (!r.ok) return { ok: false, message: r.error };
  await afterThresholds(runId);
  revalidatePath(`/runs/${encodeURIComponent(runId)}`);
  revalidatePath("/monitors");
  revalidatePath("/runs");
  return {
    ok: true,
    thresholds,
    message: r.stored
      ? "Thresholds saved; alarms and gate re-evaluated."
      : "Thresholds reset to the defaults; alarms and gate re-evaluated.",
  };
}
