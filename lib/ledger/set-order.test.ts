import { describe, expect, it } from "vitest";
import { positionPast } from "@/lib/ledger/browse.ts";

/** A kept order of (value, id) pairs, as given (already in the view's order). */
const order = (pairs: [number, number][]) => ({
  ids: BigInt64Array.from(pairs.map(([, id]) => BigInt(id))),
  values: Float64Array.from(pairs.map(([v]) => v)),
});

describe("positionPast: where a page past its cursor starts in a view's kept order", () => {
  // by value then id, descending; ties of value broken by id
  const desc = order([
    [0.9, 12],
    [0.9, 7],
    [0.5, 30],
    [0.5, 3],
    [-1, 40],
  ]);
  const asc = order([
    [-1, 40],
    [0.5, 3],
    [0.5, 30],
    [0.9, 7],
    [0.9, 12],
  ]);

  it("starts after the cursor's own entry, ties broken by id, either way", () => {
    expect(positionPast(desc, { v: 0.9, id: "12" }, false, "desc")).toBe(1);
    expect(positionPast(desc, { v: 0.9, id: "7" }, false, "desc")).toBe(2);
    expect(positionPast(desc, { v: 0.5, id: "3" }, false, "desc")).toBe(4);
    expect(positionPast(desc, { v: -1, id: "40" }, false, "desc")).toBe(5);
    expect(positionPast(asc, { v: -1, id: "40" }, false, "asc")).toBe(1);
    expect(positionPast(asc, { v: 0.5, id: "3" }, false, "asc")).toBe(2);
    expect(positionPast(asc, { v: 0.9, id: "12" }, false, "asc")).toBe(5);
  });

  it("places a cursor whose entry is not in the order where it would be, and reads a missing value as -1", () => {
    // an entry superseded since, or one of another filter: the next entries in the order all the same
    expect(positionPast(desc, { v: 0.7, id: "1" }, false, "desc")).toBe(2);
    expect(positionPast(desc, { v: 0.9, id: "9" }, false, "desc")).toBe(1);
    expect(positionPast(asc, { v: 0.5, id: "10" }, false, "asc")).toBe(2);
    expect(positionPast(desc, { v: null, id: "50" }, false, "desc")).toBe(4);
    expect(positionPast(desc, { v: 2, id: "1" }, false, "desc")).toBe(0);
  });

  it("in id order compares the ids alone", () => {
    const byId = order([
      [0, 9],
      [0, 7],
      [0, 2],
    ]);
    expect(positionPast(byId, { v: null, id: "7" }, true, "desc")).toBe(2);
    expect(positionPast(byId, { v: 123, id: "8" }, true, "desc")).toBe(1);
    expect(positionPast(byId, { v: null, id: "1" }, true, "desc")).toBe(3);
  });
});
