import { describe, expect, it } from "vitest";
import { comparePair } from "@/components/runs/compare-form.tsx";

describe("comparePair", () => {
  const runs = ["grpo-demo", "grpo-hacking", "grpo-main"];
  it("starts the two pickers on two different runs when none is asked for", () => {
    expect(comparePair(runs)).toEqual({ a: "grpo-demo", b: "grpo-hacking" });
  });
  it("keeps what was asked for, and picks another run for the side that was not", () => {
    expect(comparePair(runs, "grpo-main")).toEqual({ a: "grpo-main", b: "grpo-demo" });
    expect(comparePair(runs, undefined, "grpo-demo")).toEqual({ a: "grpo-hacking", b: "grpo-demo" });
    expect(comparePair(runs, "grpo-main", "grpo-main")).toEqual({ a: "grpo-main", b: "grpo-main" });
  });
});
