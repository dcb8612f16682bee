import { describe, expect, it } from "vitest";
import { argsMatch, asNumber, compareOp, eq, mentionEq, mismatchedFields, sameValue } from "@/lib/verifier/equality.ts";

describe("eq (value equality)", () => {
  it("compares numbers to the cent", () => {
    expect(eq(59.99, 59.99)).toBe(true);
    expect(eq(59.994, 59.99)).toBe(true);
    expect(eq(59.996, 59.99)).toBe(false);
    expect(eq(1.006, 1)).toBe(false);
    expect(eq(1.004, 1)).toBe(true);
    expect(eq(59.98, 59.99)).toBe(false);
    expect(eq(0, -0)).toBe(true);
  });

  it("counts a numeric string on either side as a number", () => {
    expect(eq("59.99", 59.99)).toBe(true);
    expect(eq(59.99, " 59.990 ")).toBe(true);
    expect(eq("59.99", "59.990")).toBe(true);
    expect(eq("1e2", 100)).toBe(true);
    expect(eq("59.99 EUR", 59.99)).toBe(false);
    expect(eq("", 0)).toBe(false);
    expect(eq("0x10", 16)).toBe(false);
  });

  it("compares strings after trimming, case-sensitively", () => {
    expect(eq("  EUR ", "EUR")).toBe(true);
    expect(eq("eur", "EUR")).toBe(false);
    expect(eq("O-1", "O-2")).toBe(false);
  });

  it("compares arrays as multisets", () => {
    expect(eq([1, 2, 2], [2, 1, 2])).toBe(true);
    expect(eq([1, 2], [1, 2, 2])).toBe(false);
    expect(eq([1, 1, 2], [1, 2, 2])).toBe(false);
    expect(eq([], [])).toBe(true);
    expect(eq([{ a: 1, b: 2 }], [{ a: 1 }])).toBe(true);
  });

  it("finds a pairing that greedy matching misses", () => {
    // Greedy pairs 1.0 with 1.004 first and then cannot place 1.008; a perfect pairing exists.
    expect(eq([1.004, 1.0], [1.0, 1.008])).toBe(true);
    expect(eq([1.0, 1.0], [1.0, 1.008])).toBe(false);
  });

  it("treats expected object keys as a subset of actual", () => {
    expect(eq({ order_id: "O-1", amount: 59.99, note: "x" }, { order_id: "O-1", amount: "59.99" })).toBe(true);
    expect(eq({ order_id: "O-1" }, { order_id: "O-1", amount: 1 })).toBe(false);
    expect(eq({ a: { b: [1, 2] } }, { a: { b: [2, 1] } })).toBe(true);
    expect(eq({}, {})).toBe(true);
    expect(eq([], {})).toBe(false);
    expect(eq({}, [])).toBe(false);
  });

  it("lets null equal only null", () => {
    expect(eq(null, null)).toBe(true);
    expect(eq(null, 0)).toBe(false);
    expect(eq(0, null)).toBe(false);
    expect(eq({ a: null }, { a: null })).toBe(true);
    expect(eq({}, { a: null })).toBe(false);
    expect(eq(undefined, null)).toBe(false);
  });

  it("compares booleans strictly", () => {
    expect(eq(true, true)).toBe(true);
    expect(eq(true, "true")).toBe(false);
    expect(eq(1, true)).toBe(false);
  });

  it("sameValue is eq both ways", () => {
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameValue({ a: 1, b: 2 }, { b: 2, a: "1" })).toBe(true);
  });
});

describe("args match and mismatched fields", () => {
  it("treats missing expected args as matching anything", () => {
    expect(argsMatch({ x: 1 }, undefined)).toBe(true);
    expect(argsMatch("free text", { x: 1 })).toBe(false);
  });
  it("lists the fields that differ", () => {
    expect(
      mismatchedFields({ order_id: "O-1", amount: 29.99 }, { order_id: "O-1", currency: "EUR", amount: 59.99 }),
    ).toEqual(["amount", "currency"]);
  });
});

describe("mentionEq", () => {
  it("accepts numbers within 1% of the expected value", () => {
    expect(mentionEq(60, 59.99)).toBe(true);
    expect(mentionEq(60.58, 59.99)).toBe(true);
    expect(mentionEq(60.6, 59.99)).toBe(false);
    expect(mentionEq("59.99", 59.99)).toBe(true);
    expect(mentionEq(0, 0)).toBe(true);
    expect(mentionEq(0.001, 0)).toBe(false);
  });
  it("compares strings ignoring case and surrounding space", () => {
    expect(mentionEq("  Express ", "express")).toBe(true);
    expect(mentionEq("express delivery", "express")).toBe(false);
  });
});

describe("compareOp (harm rules)", () => {
  it("lt and gt are strict beyond half a cent", () => {
    expect(compareOp("lt", 29.99, 59.99)).toBe(true);
    expect(compareOp("lt", 59.989, 59.99)).toBe(false);
    expect(compareOp("gt", 60, 59.99)).toBe(true);
    expect(compareOp("gt", "60", "59.99")).toBe(true);
    expect(compareOp("lt", "abc", 1)).toBe(false);
    expect(compareOp("lt", undefined, 1)).toBe(false);
  });
  it("eq and ne follow value equality", () => {
    expect(compareOp("eq", "EUR", "EUR")).toBe(true);
    expect(compareOp("ne", "USD", "EUR")).toBe(true);
    expect(compareOp("ne", undefined, "EUR")).toBe(true);
  });
});

describe("asNumber", () => {
  it("parses decimal literals only", () => {
    expect(asNumber(" 12.50 ")).toBe(12.5);
    expect(asNumber("-3")).toBe(-3);
    expect(asNumber(".5")).toBe(0.5);
    expect(asNumber("1,000")).toBeUndefined();
    expect(asNumber(Number.NaN)).toBeUndefined();
    expect(asNumber(Infinity)).toBeUndefined();
  });
});
