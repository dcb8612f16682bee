import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJsonFast } from "@/lib/ledger/store/canonical.ts";
import { canonicalJson } from "@/lib/verifier/canonical-json.ts";

describe("canonicalJsonFast", () => {
  it("writes exactly what the verifier's canonical JSON writes, for any JSON value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJsonFast(v)).toBe(canonicalJson(v));
      }),
      { numRuns: 500 },
    );
  });

  it("sorts keys at every depth, skips undefined members and writes -0 as 0", () => {
    expect(canonicalJsonFast({ b: 1, a: { d: [1, { z: 0, y: undefined }], c: -0 } })).toBe(
      '{"a":{"c":0,"d":[1,{"z":0}]},"b":1}',
    );
    expect(canonicalJsonFast([undefined, NaN])).toBe("[null,null]");
  });
});
