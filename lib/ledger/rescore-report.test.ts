import { describe, expect, it } from "vitest";
import { formatRescoreReport } from "@/lib/ledger/rescore-report.ts";
import type { RescoreSummary } from "@/lib/ledger/store/supersede.ts";

const base: RescoreSummary = {
  run_id: "grpo-7",
  config_hash: "sha256:" + "a".repeat(64),
  rollouts: 10,
  rescored: 8,
  reward_changed: 3,
  added: 1,
  unchanged: 0,
  skipped_external: 1,
  skipped_no_case: 0,
  crossed_up: 2,
  crossed_down: 1,
  mean_before: 0.5,
  mean_after: 0.625,
  transitions: [],
};

describe("re-score report", () => {
  it("says how many crossed the success line and shows the deciding guardrail moves as a table", () => {
    const lines = formatRescoreReport({
      ...base,
      transitions: [
        { from: "missing_evidence", to: null, n: 2 },
        { from: null, to: "empty_promise", n: 1 },
      ],
    });
    expect(lines[0]).toBe("re-scored run grpo-7 under config sha256:aaaaaaaaaaaa…");
    expect(lines).toContain("  success line (reward ≥ 0.9): 2 crossed up, 1 crossed down");
    expect(lines).toContain("  mean reward of the superseded entries → their new entries: 0.5000 → 0.6250");
    expect(lines.slice(-3)).toEqual([
      "    from              to             rollouts",
      "    missing_evidence  (none)                2",
      "    (none)            empty_promise         1",
    ]);
  });

  it("says so when no deciding guardrail moved", () => {
    expect(formatRescoreReport(base).at(-1)).toBe("  deciding guardrail: no changes");
  });
});
