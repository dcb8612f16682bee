// The demo's "How it holds up" story, on the main demo run's own rollouts: the injection probe moves the simulated
// judge (its report is flagged) and moves neither the rule verifier nor the rule reward. Through the same compiled
// versions, and the judge component's own code path, a reward run uses.
import { describe, expect, it } from "vitest";
import { DEMO_REWARD_FUNCTIONS } from "@/lib/demo/rewards.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { demoRunSpecs } from "@/lib/demo/seed.ts";
import { rerunReport } from "@/lib/leaderboard/reruns.ts";
import { compileVersion } from "@/lib/rewards/evaluate.ts";
import { PROBE_LINES, probedInput } from "@/lib/rewards/probes.ts";
import { judgeEvaluator } from "@/lib/rewards/judge.ts";
import { versionDocument } from "@/lib/rewards/schema.ts";
import type { Case, Rollout } from "@/lib/verifier/schema.ts";

/** 40 rollouts of the main demo run (the demo probes a sample of 40 audited ones): 20 tickets, 2 steps, K = 1. */
function demoInputs() {
  const spec = { ...demoRunSpecs("small").find((s) => s.runId === "grpo-main")!, tickets: 20, steps: 2, k: 1 };
  const cases = new Map<string, Case>();
  const rollouts: Rollout[] = [];
  for (const v of demoRunValues(spec)) {
    if (v.kind === "rollout") rollouts.push(v as unknown as Rollout);
    else cases.set((v as unknown as Case).ticket.id, v as unknown as Case);
  }
  return rollouts.map((rollout) => ({ rollout, caseDoc: cases.get(rollout.ticket_id)! }));
}

async function probe(name: string) {
  const doc = versionDocument(DEMO_REWARD_FUNCTIONS.find((f) => f.name === name)!.doc);
  const v = compileVersion(doc, { judge: (c) => judgeEvaluator(c, { env: null }) });
  const rows = [];
  for (const input of demoInputs()) {
    const first = (await v.evaluate(input)).reward;
    for (const line of PROBE_LINES)
      rows.push({
        probeLine: line.id,
        first,
        second: (await v.evaluate(probedInput(input, line))).reward,
        rollout: input.rollout.trajectory_id,
      });
  }
  return rerunReport(1, "probe", rows);
}

describe("the demo's injection probe", () => {
  it("flags the simulated judge, with enough pairs to say so", async () => {
    const r = await probe("cs-judge-simulated");
    expect(r.overall.n).toBe(40 * PROBE_LINES.length);
    expect(r.moved).toBe(true);
    expect(r.overall.flips.tooFew).toBe(false);
    expect(r.overall.flips.k).toBeGreaterThan(0);
    expect(r.overall.meanShift.interval!.lower).toBeGreaterThan(0.05);
    const instruction = r.lines.find((l) => l.line.id === "instruction-zh")!.summary;
    expect(instruction.moved).toBe(true);
  });

  it("moves neither the rule verifier nor the rule reward", async () => {
    for (const name of ["verifier", "says-what-was-done"]) {
      const r = await probe(name);
      expect([name, r.overall.n, r.moved, r.overall.flips.k, r.overall.mae.value]).toEqual([
        name,
        40 * PROBE_LINES.length,
        false,
        0,
        0,
      ]);
    }
  });
});
