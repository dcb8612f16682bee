import { describe, expect, it } from "vitest";
import { fmtDuration, formatProgress } from "@/lib/ingest/progress.ts";

describe("progress line", () => {
  it("shows a bar, the rate and the time left when the size is known", () => {
    expect(formatProgress({ lines: 50_000, bytes: 25, totalBytes: 100, elapsedMs: 10_000, rejected: 0 }, 8)).toBe(
      "[##------]  25%  50,000 lines  5,000 lines/s  ETA 30s",
    );
  });

  it("shows only lines and rate without a size, and counts rejects", () => {
    expect(formatProgress({ lines: 10, bytes: 999, totalBytes: null, elapsedMs: 2000, rejected: 3 })).toBe(
      "10 lines  5 lines/s  (3 rejected)",
    );
  });

  it("does not divide by zero at the start or claim more than 100%", () => {
    expect(formatProgress({ lines: 0, bytes: 0, totalBytes: 100, elapsedMs: 0, rejected: 0 }, 4)).toBe(
      "[----]   0%  0 lines  0 lines/s",
    );
    expect(formatProgress({ lines: 5, bytes: 150, totalBytes: 100, elapsedMs: 1000, rejected: 0 }, 4)).toBe(
      "[####] 100%  5 lines  5 lines/s",
    );
  });

  it("formats durations", () => {
    expect(fmtDuration(59.4)).toBe("59s");
    expect(fmtDuration(61)).toBe("1m01s");
    expect(fmtDuration(3700)).toBe("1h01m");
    expect(fmtDuration(Infinity)).toBe("?");
  });
});
