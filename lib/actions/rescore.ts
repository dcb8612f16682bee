"use server";
// The admin's "Re-score run" button: the same re-score as `verity rescore`, under the default config or one of the
// stored verifier configs. Admin-only through the policy (configs.manage); recorded in the activity log.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { isForm, NOT_A_FORM, requireActionUser } from "@/lib/auth/guards.ts";
import { verifyDefects } from "@/lib/defects/mutations.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { runExists } from "@/lib/ledger/export.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { formatRescoreReport } from "@/lib/ledger/rescore-report.ts";
import { configByChoice } from "@/lib/verifier-configs/data.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

export type RescoreState = { ok?: boolean; message?: string; report?: string[] };

const rescoreInput = z.object({
  runId: z.string().min(1).max(200),
  config: z.union([z.literal("default"), z.coerce.number().int().positive().max(INT4_MAX)]),
});

export async function rescoreRunAction(_prev: RescoreState, form: FormData): Promise<RescoreState> {
  const me = await requireActionUser("configs.manage");
  if (!isForm(form)) return NOT_A_FORM;
  const parsed = rescoreInput.safeParse({ runId: form.get("runId"), config: form.get("config") });
  if (!parsed.success) return { ok: false, message: "Pick a run and a config." };
  const { runId } = parsed.data;
  const picked = await configByChoice(parsed.data.config);
  if (!picked.ok) return { ok: false, message: picked.error };
  const { config, name: configName } = picked;
  const pool = bulkPool();
  if (!(await runExists(pool, runId))) return { ok: false, message: `No run ${runId}.` };
  const summary = await rescoreRun(pool, { runId, config, after: afterWrite(pool, { webhook: "background" }) });
  await appendActivityLog({
    actor: { userId: me.id, email: me.email },
    action: "run.rescore",
    target: { type: "run", id: runId },
    details: {
      config: configName,
      config_hash: summary.config_hash,
      rescored: summary.rescored,
      reward_changed: summary.reward_changed,
      crossed_up: summary.crossed_up,
      crossed_down: summary.crossed_down,
    },
  });
  await verifyDefects({ runId });
  revalidatePath(`/runs/${encodeURIComponent(runId)}`);
  return {
    ok: true,
    message: `Re-scored ${summary.rollouts.toLocaleString("en-US")} rollouts under ${configName}: ${summary.crossed_up} crossed 0.9 up, ${summary.crossed_down} down.`,
    report: formatRescoreReport(summary),
  };
}
