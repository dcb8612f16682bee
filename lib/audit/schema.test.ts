import { describe, expect, it } from "vitest";
import { batchFormDefaults, batchParamsSchema, DEFAULT_OVERLAP, DEFAULT_RATE } from "@/lib/audit/schema.ts";

const run = { id: "grpo-main", firstStep: 0, lastStep: 39 };
const fieldErrors = (input: Record<string, string>) => {
  const r = batchParamsSchema.safeParse(input);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join("."), i.message]));
};

describe("the New batch form", () => {
  it("previews with its defaults untouched: the blank minimum per stratum is no stratification", () => {
    const r = batchParamsSchema.safeParse(batchFormDefaults(run, "s1"));
    expect(r.success && r.data).toEqual({
      runId: "grpo-main",
      stepFrom: 0,
      stepTo: 39,
      rate: DEFAULT_RATE,
      salt: "s1",
      pick: "one",
      overlapRate: DEFAULT_OVERLAP,
      tolerance: 0.1,
      kind: "tickets",
      delta: 0.1,
      nearTieRate: 0.2,
    });
  });

  it("previews a pairwise batch with its defaults untouched", () => {
    const r = batchParamsSchema.safeParse({ ...batchFormDefaults(run, "s1"), kind: "pairwise" });
    expect(r.success && [r.data.kind, r.data.minPerStratum, r.data.delta, r.data.nearTieRate]).toEqual([
      "pairwise",
      undefined,
      0.1,
      0.2,
    ]);
  });

  it("reads every blank optional number (empty or spaces) as not given: absent or its default", () => {
    const r = batchParamsSchema.safeParse({
      ...batchFormDefaults(run, "s1"),
      rate: "",
      minPerStratum: " ",
      overlapRate: "",
      tolerance: "  ",
      delta: "",
      nearTieRate: "",
    });
    expect(r.success && r.data).toMatchObject({ rate: DEFAULT_RATE, overlapRate: DEFAULT_OVERLAP, tolerance: 0.1 });
    expect(r.success && [r.data.minPerStratum, r.data.delta, r.data.nearTieRate]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("still asks for the window's steps, and still refuses what is not a number or out of range", () => {
    expect(fieldErrors({ ...batchFormDefaults(run, "s1"), stepFrom: "" })).toEqual({ stepFrom: "Enter a number." });
    expect(fieldErrors({ ...batchFormDefaults(run, "s1"), minPerStratum: "three", rate: "0" })).toEqual({
      minPerStratum: "Enter a number.",
      rate: "The rate must be above 0.",
    });
    expect(fieldErrors({ ...batchFormDefaults(run, "s1"), minPerStratum: "2.5", delta: "1" })).toEqual({
      minPerStratum: "A whole number.",
      delta: "A reward difference: below 1.",
    });
  });

  it("takes a typed value over the default", () => {
    const r = batchParamsSchema.safeParse({ ...batchFormDefaults(run, "s1"), minPerStratum: "3", rate: "0.25" });
    expect(r.success && [r.data.minPerStratum, r.data.rate]).toEqual([3, 0.25]);
  });

  it("defaults to an empty window when there is no run", () => {
    expect(batchFormDefaults(undefined, "s")).toMatchObject({ runId: "", stepFrom: "0", stepTo: "0" });
  });
});
