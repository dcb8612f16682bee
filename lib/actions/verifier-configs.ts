"use server";
// The admin configs page's forms: "Add a config" (the same validation and storage as `verity config add`) and the
// dry run of a config over a run before re-scoring it.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { FormState } from "@/lib/admin/schema.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { collectDiffs, type DiffView } from "@/lib/cases/dry-run.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { runExists } from "@/lib/ledger/export.ts";
import { configByChoice } from "@/lib/verifier-configs/data.ts";
import { dryRunConfig, type ConfigDryRunSkips } from "@/lib/verifier-configs/dry-run.ts";
import { addVerifierConfig } from "@/lib/verifier-configs/mutations.ts";
import { configDryRunInput, parseAddConfigForm } from "@/lib/verifier-configs/schema.ts";

export async function addConfigAction(_prev: FormState, form: FormData): Promise<FormState> {
  const me = await requireActionUser("configs.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = await parseAddConfigForm(form);
  if (!parsed.ok)
    return {
      ok: false,
      message: "Fix the fields marked below.",
      fieldErrors: parsed.fieldErrors,
      values: parsed.values,
    };
  const r = await addVerifierConfig(
    { name: parsed.name, config: parsed.config, makeDefault: parsed.makeDefault },
    { userId: me.id, email: me.email },
  );
  revalidatePath("/admin/configs");
  revalidatePath("/admin");
  const c = r.config;
  if (r.status === "unchanged") {
    return {
      ok: true,
      message: `Unchanged: this config is already stored as ${c.name} v${c.version}${r.defaultChanged ? ", now the default" : ""}.`,
    };
  }
  return { ok: true, message: `Stored ${c.name} v${c.version}${c.isDefault ? " as the default" : ""}.` };
}

/** Rows of a config dry run sent to the page (changed ones first); the totals cover every rollout. */
const MAX_DRY_RUN_ROWS = 200;

export type ConfigDryRunState = {
  ok?: boolean;
  message?: string;
  fieldErrors?: Record<string, string[] | undefined>;
  view?: DiffView & { skipped: ConfigDryRunSkips };
  /** What was dry-run, for the re-score that follows. */
  runId?: string;
  config?: string;
};

/**
 * The admin configs page's dry run (admins: policy configs.manage): scores the run, or a reproducible sample of it,
 * under the chosen config and shows per rollout what a re-score would change, writing nothing.
 */
export async function dryRunConfigAction(_prev: ConfigDryRunState, form: FormData): Promise<ConfigDryRunState> {
  await requireActionUser("configs.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = configDryRunInput.safeParse({
    runId: form.get("runId") ?? "",
    config: form.get("config") ?? "",
    sample: form.get("sample") ?? "",
    seed: form.get("seed") ?? "",
  });
  if (!parsed.success)
    return {
      ok: false,
      message: "Fix the fields marked below.",
      fieldErrors: z.flattenError(parsed.error).fieldErrors,
    };
  const { runId, sample, seed } = parsed.data;
  if (!(await runExists(bulkPool(), runId)))
    return { ok: false, message: `No run ${runId}.`, fieldErrors: { runId: [`No run ${runId}.`] } };
  const picked = await configByChoice(parsed.data.config);
  if (!picked.ok) return { ok: false, message: picked.error, fieldErrors: { config: [picked.error] } };
  const run = dryRunConfig(bulkPool(), {
    runId,
    config: picked.config,
    sample: sample ? { size: sample, seed } : undefined,
  });
  const view = await collectDiffs(run.diffs, { maxRows: MAX_DRY_RUN_ROWS });
  const t = view.totals;
  const skipped = [
    run.skipped.noCase ? `${run.skipped.noCase} without a case` : "",
    run.skipped.external ? `${run.skipped.external} scored outside Verity` : "",
  ].filter(Boolean);
  return {
    ok: true,
    message:
      `${t.rollouts.toLocaleString("en-US")} rollouts of ${runId}${sample ? ` (a sample of ${sample.toLocaleString("en-US")}, seed ${JSON.stringify(seed)})` : ""} scored under ${picked.name}: ${t.rewardChanged.toLocaleString("en-US")} with another reward; ${t.nowAgree} reviews would now agree, ${t.nowDisagree} would now disagree.` +
      (skipped.length ? ` Not scored: ${skipped.join(", ")}.` : ""),
    view: { ...view, skipped: run.skipped },
    runId,
    config: String(parsed.data.config),
  };
}
