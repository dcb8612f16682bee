import { describe, expect, it } from "vitest";
import { collectDiffs, type RolloutDiff } from "@/lib/cases/dry-run.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { disputedRun, noEmptyPromise } from "@/lib/testing/defects-data.ts";
import { dryRunConfig } from "@/lib/verifier-configs/dry-run.ts";
import { configDryRunInput } from "@/lib/verifier-configs/schema.ts";
import { DEFAULT_CONFIG } from "@/lib/verifier/config.ts";

const url = process.env.DATABASE_URL!;

async function all(it: AsyncIterable<RolloutDiff>): Promise<RolloutDiff[]> {
  const out: RolloutDiff[] = [];
  for await (const d of it) out.push(d);
  return out;
}

const ledgerRows = async (runId: string) =>
  (await bulkPool(url).query("select count(*)::int as n from ledger where run_id = $1", [runId])).rows[0].n;

describe("a verifier config's dry run over a run", () => {
  it("shows per rollout what a re-score would change, and the reviews it would now agree with, writing nothing", async () => {
    // Three empty promises whose reviews disagree only by the empty_promise cap, and two honest refunds that agree.
    const { runId } = await disputedRun(url, 3, { honest: 2 });
    const before = await ledgerRows(runId);
    const config = noEmptyPromise();
    const run = dryRunConfig(bulkPool(url), { runId, config, pageSize: 2 });
    const diffs = await all(run.diffs);
    expect(diffs).toHaveLength(5);
    const changed = diffs.filter((d) => d.rewardChanged);
    expect(changed).toHaveLength(3);
    for (const d of changed) {
      expect(d.before).toMatchObject({ reward: 0.35, guardrails: ["empty_promise"] });
      expect(d.after.reward).toBeGreaterThan(0.35);
      expect(d.guardrails).toEqual({ added: [], removed: ["empty_promise"] });
      expect(d.reasons.removed.some((r) => r.startsWith("empty_promise"))).toBe(true);
      expect(d.reviews.map((r) => [r.agreedBefore, r.agreesAfter])).toEqual([[false, true]]);
    }
    for (const d of diffs.filter((x) => !x.rewardChanged))
      expect(d.reviews.map((r) => [r.agreedBefore, r.agreesAfter])).toEqual([[true, true]]);
    expect(run.skipped).toEqual({ noCase: 0, external: 0 });
    expect(await ledgerRows(runId)).toBe(before);

    // The totals and a bounded page of rows, the changed ones first.
    const view = await collectDiffs(dryRunConfig(bulkPool(url), { runId, config }).diffs, { maxRows: 2 });
    expect(view.totals).toEqual({ rollouts: 5, rewardChanged: 3, nowAgree: 3, nowDisagree: 0 });
    expect(view.rows.map((d) => d.rewardChanged)).toEqual([true, true]);
    expect(view.truncated).toBe(true);

    // What the dry run said is what the re-score does.
    const summary = await rescoreRun(bulkPool(url), { runId, config });
    expect(summary.reward_changed).toBe(3);
    const again = await collectDiffs(dryRunConfig(bulkPool(url), { runId, config }).diffs, { maxRows: 10 });
    expect(again.totals).toMatchObject({ rollouts: 5, rewardChanged: 0 });
  });

  it("takes a reproducible sample of the size asked: the same rollouts for the same seed", async () => {
    const { runId } = await disputedRun(url, 4, { honest: 4 });
    const ids = async (seed: string, size: number) =>
      (await all(dryRunConfig(bulkPool(url), { runId, config: DEFAULT_CONFIG, sample: { size, seed } }).diffs))
        .map((d) => d.trajectoryId)
        .sort();
    const a = await ids("a", 3);
    expect(a).toHaveLength(3);
    expect(await ids("a", 3)).toEqual(a);
    // A larger sample of the same seed holds the smaller one; a sample larger than the run is the run.
    expect(await ids("a", 5)).toEqual(expect.arrayContaining(a));
    expect(await ids("a", 100)).toHaveLength(8);
    const seeds = await Promise.all(["b", "c", "d", "e"].map((s) => ids(s, 3)));
    expect(seeds.some((s) => s.join() !== a.join())).toBe(true);
  });

  it("refuses bad input by field, with the reason", () => {
    const r = configDryRunInput.safeParse({ runId: " ", config: "x", sample: "2.5", seed: "" });
    expect(r.success).toBe(false);
    const issues = r.error!.issues.map((i) => [i.path.join("."), i.message]);
    expect(issues).toEqual([
      ["runId", "Pick a run."],
      ["config", "Pick a config."],
      ["sample", "A sample size is a whole number of rollouts."],
    ]);
    expect(configDryRunInput.parse({ runId: "r", config: "3", sample: "", seed: "" })).toEqual({
      runId: "r",
      config: 3,
      sample: undefined,
      seed: "1",
    });
    expect(
      configDryRunInput.safeParse({ runId: "r", config: "default", sample: "100001" }).error?.issues[0].message,
    ).toBe("A sample holds at most 100,000 rollouts.");
  });
});
