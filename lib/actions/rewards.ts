"use server";
// The reward pages' server actions: validate a draft as it is typed, store it as the next version, Try it, start a
// run (executed in the console's process, its progress on its row), read a run's progress, cancel it. Leads and
// admins only (policy "rewards.manage"), asked first in every action.
import { revalidatePath } from "next/cache";
import { requireActionUser } from "@/lib/auth/guards.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { codeIssues } from "@/lib/rewards/code.ts";
import { versionById } from "@/lib/rewards/data.ts";
import type { RewardOutcome } from "@/lib/rewards/evaluate.ts";
import { estimateRunCost, type RunEstimate } from "@/lib/rewards/estimate.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { rewardRun, type RewardRunRow } from "@/lib/rewards/run-data.ts";
import { cancelRewardRun, executeRewardRun, RewardRunRefused, startRewardRun } from "@/lib/rewards/runs.ts";
import {
  functionNameField,
  parseVersionText,
  reasonField,
  runScopeSchema,
  type RunScope,
} from "@/lib/rewards/schema.ts";
import { tryVersion } from "@/lib/rewards/try-it.ts";
import type { Issue } from "@/lib/verifier/schema.ts";
import { INT4_MAX } from "@/lib/verifier/limits.ts";

export type ValidationState = { ok: boolean; issues: Issue[]; warning: string | null; hash: string | null };

/** The editor's check as you type: JSON, the schema, every pattern, and the Python inside the sandbox. */
export async function validateRewardDraft(text: string): Promise<ValidationState> {
  await requireActionUser("rewards.manage");
  const r = parseVersionText(String(text));
  if (!r.ok) return { ok: false, issues: r.issues, warning: null, hash: null };
  const code = await codeIssues(r.doc);
  return { ok: code.issues.length === 0, issues: code.issues, warning: code.warning, hash: r.hash };
}

export type SaveState = { ok?: boolean; message?: string; issues?: Issue[]; name?: string };

export async function saveRewardVersion(name: string, text: string, reason: string): Promise<SaveState> {
  const me = await requireActionUser("rewards.manage");
  const n = functionNameField.safeParse(name);
  if (!n.success) return { ok: false, message: `Name: ${n.error.issues[0].message}` };
  const why = reasonField.safeParse(reason);
  if (!why.success) return { ok: false, message: `Reason: ${why.error.issues[0].message}` };
  const r = parseVersionText(String(text));
  if (!r.ok) return { ok: false, message: "The document has errors.", issues: r.issues };
  const code = await codeIssues(r.doc);
  if (code.issues.length) return { ok: false, message: "The Python does not compile.", issues: code.issues };
  const saved = await addRewardVersion(
    { name: n.data, doc: r.doc, reason: why.data },
    { userId: me.id, email: me.email },
    db(),
  );
  revalidatePath("/rewards");
  const v = saved.version;
  return {
    ok: true,
    name: v.name,
    message:
      saved.status === "created"
        ? `Stored ${v.name} v${v.version}.`
        : `Unchanged: already stored as ${v.name} v${v.version}.`,
  };
}

export type TryState = { ok: false; error: string } | { ok: true; outcome: RewardOutcome; runId: string; step: number };

/** Try the draft in the editor on one rollout (by trajectory id); stores nothing. */
export async function tryRewardDraft(text: string, trajectoryId: string): Promise<TryState> {
  await requireActionUser("rewards.manage");
  const r = parseVersionText(String(text));
  if (!r.ok) return { ok: false, error: `The document has errors: ${r.issues[0].path} ${r.issues[0].message}` };
  const id = String(trajectoryId).trim();
  if (!id) return { ok: false, error: "Give a rollout's trajectory id." };
  const t = await tryVersion(bulkPool(), r.doc, id);
  if (!t.ok) return t;
  return { ok: true, outcome: t.outcome, runId: t.rollout.runId, step: t.rollout.step };
}

export type StartState = { ok: false; error: string } | { ok: true; id: number; resumed: boolean };

function scopeOf(input: { scope: unknown }): RunScope | string {
  const s = runScopeSchema.safeParse(input.scope);
  return s.success ? s.data : `Scope: ${s.error.issues[0].message}`;
}

export async function estimateRewardRun(
  versionId: number,
  runId: string,
  scope: unknown,
): Promise<RunEstimate | { error: string }> {
  await requireActionUser("rewards.manage");
  const s = scopeOf({ scope });
  if (typeof s === "string") return { error: s };
  const v = await versionById(Number(versionId));
  if (!v) return { error: "That version does not exist." };
  return estimateRunCost(bulkPool(), v.doc, String(runId), s);
}

export async function startRewardRunAction(
  versionId: number,
  runId: string,
  scope: unknown,
  fresh: boolean,
): Promise<StartState> {
  const me = await requireActionUser("rewards.manage");
  const s = scopeOf({ scope });
  if (typeof s === "string") return { ok: false, error: s };
  const pool = bulkPool();
  try {
    const started = await startRewardRun(
      pool,
      { versionId: Number(versionId), runId: String(runId), scope: s, fresh: !!fresh },
      { userId: me.id, email: me.email },
    );
    // The run goes on in the console's process after this answer; its row carries the progress the page polls.
    void executeRewardRun(pool, started.id).catch(() => undefined);
    return { ok: true, id: started.id, resumed: started.resumed };
  } catch (err) {
    if (err instanceof RewardRunRefused) return { ok: false, error: err.message };
    throw err;
  }
}

/** A reward run's id as an action is handed it: a positive int4, else null (a hostile or stale argument). */
function rewardRunId(id: unknown): number | null {
  return typeof id === "number" && Number.isInteger(id) && id >= 1 && id <= INT4_MAX ? id : null;
}

export async function rewardRunProgress(id: number): Promise<RewardRunRow | null> {
  await requireActionUser("rewards.manage");
  const runId = rewardRunId(id);
  return runId === null ? null : rewardRun(bulkPool(), runId);
}

export async function cancelRewardRunAction(id: number): Promise<boolean> {
  const me = await requireActionUser("rewards.manage");
  const runId = rewardRunId(id);
  return runId === null ? false : cancelRewardRun(bulkPool(), runId, { userId: me.id, email: me.email });
}
