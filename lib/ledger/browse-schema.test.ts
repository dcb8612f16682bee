import { describe, expect, it } from "vitest";
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";

describe("parseBrowseParams", () => {
  it("refuses a single-valued filter given twice instead of matching the two values joined", () => {
    expect(parseBrowseParams(new URLSearchParams("run=grpo-main&run=grpo-hacking"))).toEqual({
      ok: false,
      errors: ["run: is given more than once; give it once"],
    });
    expect(parseBrowseParams({ step_from: ["1", "2"], sort: "step" })).toEqual({
      ok: false,
      errors: ["step_from: is given more than once; give it once"],
    });
  });

  it("joins a list filter given twice (a checkbox group), and ignores empty repeats", () => {
    const r = parseBrowseParams(new URLSearchParams("any=customer_harm&any=empty_promise&run=a&run="));
    expect(r).toMatchObject({ ok: true, params: { any: ["customer_harm", "empty_promise"], run: "a" } });
  });

  it("still names unknown filters, once", () => {
    expect(parseBrowseParams(new URLSearchParams("colour=red&colour=blue"))).toEqual({
      ok: false,
      errors: ['unknown filter "colour"'],
    });
  });
});
