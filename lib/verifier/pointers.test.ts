import { describe, expect, it } from "vitest";
import { isPointer, resolvePointer, resolveSpecValues, UNRESOLVED } from "@/lib/verifier/pointers.ts";

const snapshot = {
  order: { id: "O-1", paid_amount: 59.99, note: null, items: [{ sku: "S-1" }, { sku: "S-2" }] },
  attachments: [{ id: "A-1" }],
  "0": "zero-key",
};

describe("resolvePointer", () => {
  it("walks objects and arrays", () => {
    expect(resolvePointer("$order.paid_amount", snapshot)).toBe(59.99);
    expect(resolvePointer("$attachments.0.id", snapshot)).toBe("A-1");
    expect(resolvePointer("$order.items.1.sku", snapshot)).toBe("S-2");
    expect(resolvePointer("$order.items", snapshot)).toEqual([{ sku: "S-1" }, { sku: "S-2" }]);
    expect(resolvePointer("$0", snapshot)).toBe("zero-key");
  });
  it("resolves to null when the value is null (null is a value, not a miss)", () => {
    expect(resolvePointer("$order.note", snapshot)).toBeNull();
  });
  it("reports every kind of miss as UNRESOLVED", () => {
    expect(resolvePointer("$order.paid", snapshot)).toBe(UNRESOLVED);
    expect(resolvePointer("$attachments.1.id", snapshot)).toBe(UNRESOLVED);
    expect(resolvePointer("$attachments.x", snapshot)).toBe(UNRESOLVED);
    expect(resolvePointer("$attachments.01", snapshot)).toBe(UNRESOLVED);
    expect(resolvePointer("$order.paid_amount.x", snapshot)).toBe(UNRESOLVED);
    expect(resolvePointer("$order.toString", snapshot)).toBe(UNRESOLVED);
    expect(resolvePointer("$", snapshot)).toBe(UNRESOLVED);
  });
});

describe("isPointer", () => {
  it("recognises pointers and escaped literals", () => {
    expect(isPointer("$order.id")).toBe(true);
    expect(isPointer("$$order.id")).toBe(false);
    expect(isPointer("order.id")).toBe(false);
    expect(isPointer(5)).toBe(false);
  });
});

describe("resolveSpecValues", () => {
  it("resolves string values deep in the spec, unescapes $$ and leaves keys alone", () => {
    const { value, unresolved } = resolveSpecValues(
      { args: { amount: "$order.paid_amount", $key: "$$5 off", list: ["$attachments.0.id", 3] } },
      snapshot,
    );
    expect(unresolved).toEqual([]);
    expect(value).toEqual({ args: { amount: 59.99, $key: "$5 off", list: ["A-1", 3] } });
  });
  it("lists every unresolved pointer with its place in the spec", () => {
    const { unresolved } = resolveSpecValues({ a: ["$order.paid", { b: "$nope.x" }], c: "$order.id" }, snapshot);
    expect(unresolved).toEqual([
      { pointer: "$order.paid", field: "a.0" },
      { pointer: "$nope.x", field: "a.1.b" },
    ]);
  });
  it("does not mutate its input", () => {
    const spec = { a: "$order.id" };
    resolveSpecValues(spec, snapshot);
    expect(spec).toEqual({ a: "$order.id" });
  });
});
