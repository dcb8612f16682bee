import { describe, expect, it } from "vitest";
import { decodeSegment, describeNulPart, malformedSegment, nulPart } from "@/lib/server/route-params.ts";

describe("malformedSegment", () => {
  it("finds a % without two hex digits", () => {
    expect(malformedSegment("/trajectories/abc%ZZ")).toBe("abc%ZZ");
    expect(malformedSegment("/runs/abc%")).toBe("abc%");
    expect(malformedSegment("/runs/abc%4")).toBe("abc%4");
  });

  it("finds escapes that are not UTF-8, in any segment", () => {
    expect(malformedSegment("/api/runs/%E0%A4%A/charts/hit-rate")).toBe("%E0%A4%A");
    expect(malformedSegment("/api/runs/grpo-demo/charts/%FF")).toBe("%FF");
    expect(malformedSegment("/api/runs/%C3%28/charts/hit-rate")).toBe("%C3%28");
  });

  it("passes every well-formed path, encoded slashes and percent signs included", () => {
    for (const p of ["/", "/runs", "/runs/grpo-demo", "/runs/a%2Fb", "/trajectories/a%25ZZ", "/runs/%E0%A4%A4", ""])
      expect(malformedSegment(p)).toBeNull();
  });
});

describe("decodeSegment", () => {
  it("decodes once", () => {
    expect(decodeSegment("grpo%2Ddemo")).toBe("grpo-demo");
    expect(decodeSegment("a%2525b")).toBe("a%25b");
    expect(decodeSegment("%E0%A4%A4")).toBe("त");
  });

  it("is null for what does not decode", () => {
    expect(decodeSegment("abc%ZZ")).toBeNull();
    expect(decodeSegment("%E0%A4%A")).toBeNull();
  });
});

describe("nulPart", () => {
  it("names the first segment or parameter holding a NUL character", () => {
    expect(nulPart(new URL("http://h/runs/a%00b?from=1"))).toEqual({ segment: "a%00b" });
    expect(nulPart(new URL("http://h/trajectories?run=grpo&q=x%00"))).toEqual({ parameter: "q" });
    expect(nulPart(new URL("http://h/trajectories?a%00b=1"))).toEqual({ parameter: "a\\0b" });
    expect(describeNulPart({ parameter: "run" })).toBe('the parameter "run"');
  });

  it("passes addresses without one, a literal %2500 included", () => {
    for (const u of ["http://h/", "http://h/runs/a%2500?q=%2500", "http://h/runs/x?q=%C3%BC"])
      expect(nulPart(new URL(u))).toBeNull();
  });
});
