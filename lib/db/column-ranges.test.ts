import { describe, expect, it } from "vitest";
import { fitsInt8, int8Id, INT4_MAX } from "@/lib/db/column-ranges.ts";

describe("column ranges", () => {
  it("knows int4's and int8's maxima", () => {
    expect(INT4_MAX).toBe(2 ** 31 - 1);
    expect(fitsInt8("9223372036854775807")).toBe(true);
    expect(fitsInt8("9223372036854775808")).toBe(false);
    expect(fitsInt8("99999999999999999999")).toBe(false);
    expect(fitsInt8("-1")).toBe(false);
    expect(fitsInt8("")).toBe(false);
  });

  it("parses an int8 id from digits, a number or a bigint, refusing one past the column", () => {
    const id = int8Id("Missing item.");
    expect(id.parse("42")).toBe(42n);
    expect(id.parse(42)).toBe(42n);
    expect(id.parse(9223372036854775807n)).toBe(9223372036854775807n);
    for (const bad of ["9223372036854775808", 9223372036854775808n, -1n, "1e400", "", 1.5, [1]])
      expect(id.safeParse(bad).error?.issues[0].message, String(bad)).toBe("Missing item.");
  });
});
