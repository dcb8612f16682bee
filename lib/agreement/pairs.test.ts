import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { reviewDay, type PrimaryPair } from "@/lib/agreement/pairs.ts";

const at = (iso: string | Date) => ({ human: { createdAt: new Date(iso) } }) as unknown as PrimaryPair;

describe("reviewDay", () => {
  it("names the UTC day of the review, either side of midnight", () => {
    expect(reviewDay(at("2026-12-03T23:59:59.999Z"))).toBe("2026-12-03");
    expect(reviewDay(at("2026-12-04T00:00:00.000Z"))).toBe("2026-12-04");
    expect(reviewDay(at("2026-12-04T08:30:00+09:00"))).toBe("2026-12-03");
    expect(reviewDay(at("1969-12-31T12:00:00Z"))).toBe("1969-12-31");
  });

  it("property: is the review time's ISO date", () => {
    fc.assert(
      fc.property(fc.date({ min: new Date("1900-01-01"), max: new Date("2200-01-01"), noInvalidDate: true }), (d) => {
        expect(reviewDay(at(d))).toBe(d.toISOString().slice(0, 10));
      }),
    );
  });
});
