import { describe, expect, it } from "vitest";
import { fmtSetChange } from "@/components/ui/format.ts";

describe("fmtSetChange", () => {
  it('says "no change" when nothing was added or removed, and shows only the side that changed', () => {
    expect(fmtSetChange({ added: [], removed: [] })).toBe("no change");
    expect(fmtSetChange({ added: ["empty_promise"], removed: [] })).toBe("+empty_promise");
    expect(fmtSetChange({ added: [], removed: ["missing_evidence", "tool_missing"] })).toBe(
      "−missing_evidence, tool_missing",
    );
    expect(fmtSetChange({ added: ["a"], removed: ["b"] })).toBe("+a / −b");
  });
});
