import { describe, expect, it } from "vitest";
import { csvFileName, tableToCsv } from "@/lib/monitors/csv.ts";

describe("tableToCsv", () => {
  const table = {
    columns: [
      { key: "n", label: "rollouts", format: "count" as const },
      { key: "r", label: 'rate, "quoted"', format: "percent" as const },
    ],
    rows: [
      { step: 0, n: 10, r: 0.1 },
      { step: 750, n: 0, r: null },
    ],
  };
  it("writes full-precision values, empty cells for missing ones, and quotes labels that need it", () => {
    expect(tableToCsv(table)).toBe('step,rollouts,"rate, ""quoted"""\r\n0,10,0.1\r\n750,0,\r\n');
  });
  it("adds step_to when a point pools several steps", () => {
    expect(tableToCsv(table, 500).split("\r\n")[1]).toBe("0,499,10,0.1");
  });
  it("names the file after run, chart, comparison and range", () => {
    expect(csvFileName("grpo main", "handoff", { compare: "grpo/hacking", from: 0, to: 750 })).toBe(
      "grpo_main-handoff-vs-grpo_hacking-0-750.csv",
    );
  });
});
