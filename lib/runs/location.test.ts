import { describe, expect, it } from "vitest";
import {
  compareTarget,
  defaultRun,
  runOfLocation,
  withRun,
  lastRunCookieValue,
  runOfCookie,
} from "@/lib/runs/location.ts";

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

describe("compareTarget", () => {
  it("sends two runs to the first run's page with the second overlaid, keeping the other parameters", () => {
    expect(compareTarget("/runs/compare", new URLSearchParams("a=grpo-hacking&b=grpo-main&from=3&smooth=5"))).toBe(
      "/runs/grpo-hacking?from=3&smooth=5&compare=grpo-main",
    );
    expect(compareTarget("/runs/compare", new URLSearchParams("a=a%2Fb&b=c%20d"))).toBe("/runs/a%2Fb?compare=c+d");
  });
  it("keeps the first of a repeated parameter, as the page reads it", () => {
    expect(compareTarget("/runs/compare", new URLSearchParams("a=x&a=y&b=z&to=1&to=2"))).toBe("/runs/x?to=1&compare=z");
  });
  it("leaves the comparison page without both runs, and every other page, alone", () => {
    expect(compareTarget("/runs/compare", new URLSearchParams("a=x"))).toBeNull();
    expect(compareTarget("/runs/compare", new URLSearchParams("a=x&b=%20"))).toBeNull();
    expect(compareTarget("/runs/x", new URLSearchParams("a=x&b=y"))).toBeNull();
  });
});

describe("withRun", () => {
  it("carries the run as a query parameter, encoded", () => {
    expect(withRun("/clusters", "grpo main")).toBe("/clusters?run=grpo%20main");
    expect(withRun("/clusters", null)).toBe("/clusters");
  });
});

describe("defaultRun", () => {
  const runs = [
    { id: "new-empty", rollouts: 0 },
    { id: "grpo-hacking", rollouts: 9600 },
    { id: "grpo-main", rollouts: 9600 },
  ];
  const hasData = (r: { rollouts: number }) => r.rollouts > 0;
  it("opens the run asked for, else the one last looked at, else the newest with data, else the newest", () => {
    expect(defaultRun(runs, { asked: "grpo-main", lastRun: "grpo-hacking" }, hasData)?.id).toBe("grpo-main");
    expect(defaultRun(runs, { lastRun: "grpo-main" }, hasData)?.id).toBe("grpo-main");
    expect(defaultRun(runs, { lastRun: "new-empty" }, hasData)?.id).toBe("new-empty");
    expect(defaultRun(runs, {}, hasData)?.id).toBe("grpo-hacking");
    expect(defaultRun(runs.slice(0, 1), {}, hasData)?.id).toBe("new-empty");
    expect(defaultRun([], { lastRun: "grpo-main" })).toBeUndefined();
  });
  it("passes over a run that no longer exists, asked for or remembered", () => {
    expect(defaultRun(runs, { asked: "gone", lastRun: "grpo-main" }, hasData)?.id).toBe("grpo-main");
    expect(defaultRun(runs, { lastRun: "gone" }, hasData)?.id).toBe("grpo-hacking");
  });
});

describe("the last run's cookie", () => {
  it("reads back every run id it writes, and nothing it did not", () => {
    for (const run of ["grpo-main", "a%ZZ", "with spaces & 'quotes'", "运行-1", "%", "a;b=c"])
      expect(runOfCookie(lastRunCookieValue(run))).toBe(run);
    // What a cookie parser that decodes once more (as Next does for a cookie set in the proxy) is handed is still valid.
    expect(() => decodeURIComponent(decodeURIComponent(encodeURIComponent(lastRunCookieValue("a%ZZ"))))).not.toThrow();
    expect(runOfCookie("a%ZZ")).toBeNull();
    expect(runOfCookie(undefined)).toBeNull();
  });
});
