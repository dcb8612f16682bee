import { describe, expect, it } from "vitest";
import { makeCase, makeRollout } from "@/lib/testing/verifier-fixtures.ts";
import { scoreInput } from "@/lib/verifier/score-input.ts";

const cases = new Map([["T-1001", makeCase()]]);
const lookup = (id: string) => cases.get(id);

describe("scoreInput", () => {
  it("scores a valid rollout against the case found by ticket_id", () => {
    const r = scoreInput(JSON.parse(JSON.stringify(makeRollout())), lookup);
    expect(r.status).toBe("scored");
    expect(r.reward).toBe(1);
  });

  it("prefers the embedded case", () => {
    const embedded = { ...makeRollout(), case: makeCase({ step_budget: 1 }) };
    expect(scoreInput(embedded, lookup).subscores?.efficiency).toBe(0);
  });

  it("turns a malformed rollout into input_error with path and message, keeping what identity it can", () => {
    const bad = { ...makeRollout(), step: -1, extra: true };
    const r = scoreInput(bad, lookup);
    expect(r).toMatchObject({
      status: "input_error",
      trajectory_id: "t/1",
      step: null,
      reward: null,
      raw_reward: null,
      subscores: null,
      guardrails: [],
    });
    expect(r.reasons).toEqual([
      { code: "input_invalid", path: "step", message: expect.any(String) },
      { code: "input_invalid", path: "extra", message: 'unknown field "extra"' },
    ]);
  });

  it("says so when the case is missing", () => {
    const r = scoreInput(makeRollout({ ticketId: "T-404" }), lookup);
    expect(r.status).toBe("input_error");
    expect(r.ticket_id).toBe("T-404");
    expect(r.reasons).toEqual([
      { code: "case_missing", path: "ticket_id", message: "no case for ticket T-404: not embedded and not found" },
    ]);
  });

  it("gives a spec_error with the pointer, and no reward, for a pointer that does not resolve", () => {
    const c = makeCase({ must_mention: [{ key: "refund_amount", value: "$order.total" }] });
    const r = scoreInput({ ...makeRollout(), case: c }, lookup);
    expect(r).toMatchObject({
      status: "spec_error",
      reward: null,
      raw_reward: null,
      handoff: false,
      tool_steps: 4,
      claims_source: "bundle",
    });
    expect(r.reasons).toEqual([
      expect.objectContaining({
        code: "pointer_unresolved",
        pointer: "$order.total",
        field: "verifier_spec.must_mention.0.value",
      }),
    ]);
  });

  it("does not throw on non-objects", () => {
    for (const v of [null, 3, "x", [], undefined]) expect(scoreInput(v, lookup).status).toBe("input_error");
  });
});
