import { describe, expect, it } from "vitest";
import { unittestCounts } from "@/bin/unittest-report.ts";

describe("unittestCounts", () => {
  it("reads a passing run, with skips and expected failures counted as they should be", () => {
    const out =
      "test_a (t.A.test_a) ... ok\n\n" +
      "-".repeat(70) +
      "\nRan 5 tests in 1.234s\n\nOK (skipped=1, expected failures=1)\n";
    expect(unittestCounts(out)).toEqual({ passed: 4, failed: 0, skipped: 1 });
  });

  it("counts failures, errors and unexpected successes as failed", () => {
    const out = "Ran 9 tests in 0.5s\n\nFAILED (failures=2, errors=1, skipped=2, unexpected successes=1)\n";
    expect(unittestCounts(out)).toEqual({ passed: 3, failed: 4, skipped: 2 });
  });

  it("finds the summary after log lines a test wrote in the middle of the report", () => {
    const out = "test_b (t.B.test_b) ... verity: connection failed\nok\nRan 1 test in 0.1s\n\nOK\n";
    expect(unittestCounts(out)).toEqual({ passed: 1, failed: 0, skipped: 0 });
  });

  it("answers null when the run ended without a summary", () => {
    expect(unittestCounts("Traceback (most recent call last):\n  ImportError: boom\n")).toBeNull();
    expect(unittestCounts("")).toBeNull();
  });
});
