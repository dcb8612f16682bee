// Rollups of a simulated GRPO run, written through the ingest path's own rollup code (RollupDelta +
// applyRollupDelta) without writing the ledger itself: each simulated rollout is the RollupEntry the ingest would
// have derived from its score record. Behaviour follows the demo curves (lib/demo/curve.ts); rewards follow the
// verifier's shape: clean ≈ 1, hand-off 0.58, a flawed rollout's raw reward capped by its lowest triggered cap.
import type pg from "pg";
import { drawFlaws, ratesAt, type Flaws, type Variant } from "@/lib/demo/curve.ts";
import { hashSeed, rng } from "@/lib/demo/rng.ts";
import { guardrailMask } from "@/lib/verifier/guardrail-mask.ts";
import { applyRollupDelta, RollupDelta, type RollupEntry } from "@/lib/ledger/store/rollups.ts";

const CAPS: [keyof Flaws, string, number][] = [
  ["harm", "customer_harm", 0.25],
  ["unauthorized", "unauthorized_write", 0.3],
  ["duplicate", "duplicate_side_effect", 0.3],
  ["emptyPromise", "empty_promise", 0.35],
  ["policyError", "policy_error", 0.45],
  ["missingEvidence", "missing_evidence", 0.55],
];

export type SimulatedRun = {
  runId: string;
  steps: number;
  perStep: number;
  k: number;
  stride: number;
  variant: Variant;
  seed: string;
};

/** One simulated rollout as the rollups see it. */
function entry(run: SimulatedRun, step: number, group: number, u: () => number, t: number): RollupEntry {
  const f = drawFlaws(ratesAt(t, run.variant), u);
  const triggered = CAPS.filter(([flaw]) => f[flaw]);
  let raw: number;
  if (!f.handoff && triggered.length === 0 && !f.incomplete) raw = 0.95 + 0.05 * u();
  else if (f.handoff) raw = 0.58;
  else if (f.incomplete && triggered.length === 0) raw = 0.2 + 0.3 * u();
  else raw = 0.6 + 0.3 * u();
  raw = Math.round(raw * 1e6) / 1e6;
  const lowest = triggered.reduce<[string, number] | null>(
    (m, [, code, cap]) => (m === null || cap < m[1] ? [code, cap] : m),
    null,
  );
  const reward = lowest && lowest[1] < raw ? lowest[1] : raw;
  return {
    run_id: run.runId,
    step,
    group_id: `${run.runId}/s${step}/g${group}`,
    status: "scored",
    source: "verifier",
    reward,
    raw_reward: raw,
    capped: reward < raw,
    handoff: f.handoff,
    guardrail_mask: guardrailMask(triggered.map(([, code]) => code)),
    deciding_guardrail: lowest?.[0] ?? null,
    trained_reward: null,
  };
}

/** Writes the run's rollups step by step (one transaction per `stepsPerTx` steps); returns the rollouts simulated. */
export async function writeSimulatedRollups(
  client: pg.PoolClient,
  run: SimulatedRun,
  stepsPerTx = 10,
): Promise<number> {
  let n = 0;
  for (let s0 = 0; s0 < run.steps; s0 += stepsPerTx) {
    const delta = new RollupDelta();
    for (let s = s0; s < Math.min(run.steps, s0 + stepsPerTx); s++) {
      const step = s * run.stride;
      const t = run.steps > 1 ? s / (run.steps - 1) : 1;
      const r = rng(hashSeed(run.seed, run.runId, step));
      for (let i = 0; i < run.perStep; i++) {
        delta.add(entry(run, step, Math.floor(i / run.k), r.next, t), 1);
        n++;
      }
    }
    await client.query("begin");
    await applyRollupDelta(client, delta);
    await client.query("commit");
  }
  return n;
}
