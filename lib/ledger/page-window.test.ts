import { describe, expect, it } from "vitest";
import {
  clipJson,
  LIST_CHUNK,
  textWindow,
  windowOf,
  windowStart,
  withoutWindowParams,
} from "@/lib/ledger/page-window.ts";

describe("page windows", () => {
  it("shows one chunk of a list from its start, and the last chunk past the end", () => {
    const items = Array.from({ length: 250 }, (_, i) => i);
    expect(windowOf(items, 0).window).toEqual({ from: 0, to: 100, total: 250 });
    expect(windowOf(items, 200).items).toEqual(items.slice(200));
    expect(windowOf(items, 9999).window).toEqual({ from: 150, to: 250, total: 250 });
    expect(windowOf([], 5).window).toEqual({ from: 0, to: 0, total: 0 });
  });

  it("windows a text by characters", () => {
    expect(textWindow("abcdef", 2, 3)).toEqual({ text: "cde", window: { from: 2, to: 5, total: 6 } });
  });

  it("reads a window's start as a whole number, else 0", () => {
    for (const [raw, n] of [
      ["200", 200],
      ["-1", 0],
      ["1e3", 0],
      ["9999999999", 0],
      [undefined, 0],
    ] as const)
      expect(windowStart(raw)).toBe(n);
    expect(windowStart(["30", "40"])).toBe(30);
  });

  it("clips long strings, lists and objects in JSON, saying what was left out", () => {
    const clipped = clipJson({ s: "x".repeat(30), a: Array.from({ length: LIST_CHUNK + 5 }, () => 1) }, 10) as {
      s: string;
      a: unknown[];
    };
    expect(clipped.s).toBe(`${"x".repeat(10)}… (20 more characters not shown)`);
    expect(clipped.a).toHaveLength(LIST_CHUNK + 1);
    expect(clipped.a.at(-1)).toBe("… (5 more items not shown)");
  });

  it("keeps the filter the user came from apart from the windows", () => {
    expect(withoutWindowParams({ run: "a", steps_from: "100", reply_from: "2" })).toEqual({ run: "a" });
  });
});
