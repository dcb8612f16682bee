import { describe, expect, it } from "vitest";
import { parseDefectsParams } from "@/lib/defects/schema.ts";

describe("the defects list's URL parameters", () => {
  it("accepts the filters", () => {
    expect(parseDefectsParams({ status: "fixed", guardrail: "empty_promise", kind: "rule" })).toEqual({
      ok: true,
      params: { status: "fixed", guardrail: "empty_promise", kind: "rule" },
    });
    expect(parseDefectsParams({ guardrail: "none", status: "" })).toEqual({ ok: true, params: { guardrail: "none" } });
  });

  it("names each bad field, why and the value given, and keeps the good ones", () => {
    expect(parseDefectsParams({ status: "closed", guardrail: "empty_promise", colour: "red" })).toEqual({
      ok: false,
      errors: ['status: must be one of open, fixed, verified (given "closed")', 'unknown filter "colour"'],
      partial: { guardrail: "empty_promise" },
    });
    expect(parseDefectsParams({ guardrail: "nope" })).toMatchObject({
      ok: false,
      errors: ['guardrail: must be a guardrail code or "none" (given "nope")'],
    });
  });

  it("refuses a filter given twice", () => {
    expect(parseDefectsParams({ status: ["open", "fixed"], kind: "spec" })).toEqual({
      ok: false,
      errors: ["status: is given more than once; give it once"],
      partial: { kind: "spec" },
    });
  });
});
