import { describe, expect, it } from "vitest";
import { runOfLocation, withRun } from "@/lib/runs/location.ts";

describe("runOfLocation", () => {
  it("reads the run page's run, and a run parameter elsewhere", () => {
    expect(runOfLocation("/runs/grpo-hacking", null)).toBe("grpo-hacking");
    expect(runOfLocation("/runs/a%2Fb", new URLSearchParams("run=x"))).toBe("a/b");
    expect(runOfLocation("/trajectories", new URLSearchParams("run=grpo-main&step=3"))).toBe("grpo-main");
    expect(runOfLocation("/clusters", new URLSearchParams("run=tau2-retail"))).toBe("tau2-retail");
  });
  it("names no run for the runs list, the comparison page, an empty or undecodable run", () => {
    expect(runOfLocation("/runs", new URLSearchParams())).toBeNull();
    expect(runOfLocation("/runs/compare", new URLSearchParams("a=x&b=y"))).toBeNull();
    expect(runOfLocation("/trajectories", new URLSearchParams("run=%20"))).toBeNull();
    expect(runOfLocation("/runs/%E0%A4%A", null)).toBeNull();
  });
});

describe("withRun", () => {
  it("carries the run as a query parameter, encoded", () => {
    expect(withRun("/clusters", "grpo main")).toBe("/clusters?run=grpo%20main");
    expect(withRun("/clusters", null)).toBe("/clusters");
  });
});
