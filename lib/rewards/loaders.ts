// The reward pages' data: a function's versions, its runs, the runs to pick from and a rollout to try it on; the
// templates as editor text.
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { functionVersions, type VersionRow } from "@/lib/rewards/data.ts";
import { listRewardRuns, type RewardRunRow } from "@/lib/rewards/run-data.ts";
import { REWARD_TEMPLATES } from "@/lib/rewards/templates.ts";

export function templateOptions(): { id: string; title: string; text: string }[] {
  return REWARD_TEMPLATES.map((t) => ({ id: t.id, title: t.title, text: JSON.stringify(t.doc, null, 2) }));
}

export type RewardFunctionPage = {
  versions: VersionRow[];
  runs: RewardRunRow[];
  runIds: string[];
  exampleRollout: string | null;
};

export async function loadRewardFunctionPage(name: string): Promise<RewardFunctionPage | null> {
  const versions = await functionVersions(name);
  if (!versions) return null;
  const pool = bulkPool();
  const [runs, runIds, example] = await Promise.all([
    listRewardRuns(pool, { functionName: name, limit: 20 }),
    // the run ids to pick from (not lib/runs: its page loaders read the leaderboard, which reads reward functions)
    db()
      .run.findMany({ select: { id: true }, orderBy: { id: "asc" } })
      .then((rows) => rows.map((r) => r.id)),
    pool.query<{ trajectory_id: string }>("select trajectory_id from trajectories order by trajectory_id limit 1"),
  ]);
  return { versions, runs, runIds, exampleRollout: example.rows[0]?.trajectory_id ?? null };
}
