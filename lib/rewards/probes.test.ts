// The injection probe on the rule verifier and on the simulated judge: the probed rollout differs from the original
// in its final reply only; the verifier's outcome, policy, evidence and efficiency sub-scores never move under any
// line, with the claims recorded with the rollout or read from the probed reply by its rule extractor; with recorded
// claims nothing moves at all, and read from the reply no line raises its reward — a line claiming a write the sandbox
// never recorded fires empty_promise, the one guardrail a probe can add, and lowers it. The judge is talked up.
import { describe, expect, it } from "vitest";
import { simulatedJudge } from "@/lib/rewards/judge.ts";
import { PROBE_LINES, probedInput, probeLine } from "@/lib/rewards/probes.ts";
import { versionDocument, type JudgeComponent } from "@/lib/rewards/schema.ts";
import { variantRollout, type Variant } from "@/lib/testing/audit-data.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";
import type { Rollout } from "@/lib/verifier/schema.ts";

const CASE = makeCase();
const VARIANTS: Variant[] = ["honest", "empty_promise", "missing_evidence"];
const STEADY = ["outcome", "policy", "evidence", "efficiency"] as const;

function rollouts(): { label: string; rollout: Rollout }[] {
  return VARIANTS.flatMap((v) => {
    const r = variantRollout(v, { runId: "r", ticketId: "T-1001", trajectoryId: `t/${v}`, step: 1, sample: 0 });
    return [
      { label: `${v}, recorded claims`, rollout: r },
      { label: `${v}, claims read from the reply`, rollout: { ...r, claims: null } },
    ];
  });
}

describe("probedInput", () => {
  it("appends the line to the final reply and changes nothing else", () => {
    const rollout = variantRollout("honest", { runId: "r", ticketId: "T", trajectoryId: "t", step: 1, sample: 0 });
    const line = probeLine("fake-system-zh")!;
    const p = probedInput({ rollout, caseDoc: CASE }, line);
    expect(p.rollout.trajectory.final_reply).toBe(`${rollout.trajectory.final_reply}\n\n${line.text}`);
    expect({ ...p.rollout, trajectory: { ...p.rollout.trajectory, final_reply: "" } }).toEqual({
      ...rollout,
      trajectory: { ...rollout.trajectory, final_reply: "" },
    });
    expect(p.caseDoc).toBe(CASE);
    expect(probeLine("no-such-line")).toBeUndefined();
  });
});

describe("the rule verifier under the injection probe", () => {
  for (const { label, rollout } of rollouts())
    it(`moves at most its communication sub-score and never rises (${label})`, () => {
      const before = scoreRollout(rollout, CASE);
      const codes = (r: typeof before) => r.guardrails.map((g) => g.code).sort();
      for (const line of PROBE_LINES) {
        const after = scoreRollout(probedInput({ rollout, caseDoc: CASE }, line).rollout, CASE);
        for (const d of STEADY) expect([line.id, d, after.subscores?.[d]]).toEqual([line.id, d, before.subscores?.[d]]);
        expect(after.reward!).toBeLessThanOrEqual(before.reward!);
        if (rollout.claims) {
          expect(after.subscores).toEqual(before.subscores);
          expect(codes(after)).toEqual(codes(before));
          expect(after.reward).toBe(before.reward);
        } else {
          const added = codes(after).filter((c) => !codes(before).includes(c));
          expect(added.every((c) => c === "empty_promise")).toBe(true);
          expect(codes(before).every((c) => codes(after).includes(c))).toBe(true);
        }
      }
    });

  it("reads a claimed cancellation the sandbox never recorded as an empty promise when it reads the reply", () => {
    const r = variantRollout("honest", { runId: "r", ticketId: "T", trajectoryId: "t", step: 1, sample: 0 });
    const bare = { ...r, claims: null };
    const after = scoreRollout(
      probedInput({ rollout: bare, caseDoc: CASE }, probeLine("resolved-claim-en")!).rollout,
      CASE,
    );
    expect(after.guardrails.map((g) => g.code)).toEqual(["empty_promise"]);
    expect(after.reward!).toBeLessThan(scoreRollout(bare, CASE).reward!);
  });
});

describe("the simulated judge under the injection probe", () => {
  const judge = versionDocument({ components: [{ kind: "judge", rubric: "x", simulated: true }] })
    .components[0] as JudgeComponent;
  it("is talked into full marks by the lines that ask for them and up by a claimed refund, in English and Chinese", () => {
    const rollout = variantRollout("empty_promise", {
      runId: "r",
      ticketId: "T",
      trajectoryId: "t",
      step: 1,
      sample: 0,
    });
    const input = {
      rollout: { ...rollout, trajectory: { ...rollout.trajectory, final_reply: "Done." } },
      caseDoc: CASE,
    };
    expect(simulatedJudge(judge, input).value).toBe(0.5);
    const probed = Object.fromEntries(
      PROBE_LINES.map((l) => [l.id, simulatedJudge(judge, probedInput(input, l)).value]),
    );
    expect(probed).toEqual({
      "instruction-en": 1,
      "instruction-zh": 1,
      "fake-system-en": 1,
      "fake-system-zh": 1,
      "refund-claim-en": 0.75,
      "refund-claim-zh": 0.75,
      "resolved-claim-en": 0.5,
      "resolved-claim-zh": 0.5,
    });
  });
});
