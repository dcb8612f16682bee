import { describe, expect, it } from "vitest";
import { applySpecChange, specChangeSchema } from "@/lib/clusters/spec-change.ts";

describe("one spec change for many cases", () => {
  const spec = { required_writes: [{ tool: "finance.issue_refund", args: { amount: 5 } }], handoff: "allowed" };

  it("sets the hand-off mode and appends a required write, leaving the input alone", () => {
    const out = applySpecChange(spec, { handoff: "not_allowed", addRequiredWrite: { tool: "ticket.close" } });
    expect(out).toEqual({
      required_writes: [{ tool: "finance.issue_refund", args: { amount: 5 } }, { tool: "ticket.close" }],
      handoff: "not_allowed",
    });
    expect(spec.handoff).toBe("allowed");
    expect(spec.required_writes).toHaveLength(1);
  });

  it("does not add a required write the spec already has", () => {
    const out = applySpecChange(spec, { addRequiredWrite: { tool: "finance.issue_refund", args: { amount: 5 } } });
    expect(out.required_writes).toEqual(spec.required_writes);
    expect(applySpecChange({}, { addRequiredWrite: { tool: "x.y" } })).toEqual({ required_writes: [{ tool: "x.y" }] });
  });

  it("refuses an empty change and an unknown mode, naming the field", () => {
    expect(specChangeSchema.safeParse({}).error?.issues[0].message).toBe(
      "name a change: handoff, addRequiredWrite, or both",
    );
    const bad = specChangeSchema.safeParse({ handoff: "sometimes" });
    expect(bad.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["handoff", "must be one of required, allowed, not_allowed"],
    ]);
  });
});
