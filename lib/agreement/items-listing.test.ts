import { describe, expect, it } from "vitest";
import type { AgreementItem } from "@/lib/agreement/data.ts";
import { compareKeys, decodeKey, encodeKey, pageItems, type ItemListing } from "@/lib/agreement/items-listing.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");

/** An item with one review per reward in `human` (reviewer r0, r1, …) against a ledger reward. */
function item(id: number, ledger: number | null, human: number[], step = id * 10): AgreementItem {
  const sub = { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: 1 };
  return {
    item: {
      itemId: BigInt(id),
      batchId: 1,
      runId: "r",
      step,
      trajectoryId: `r/s${step}/T${id}/k0`,
      ticketId: `T${id}`,
      stratum: null,
      inclusionProb: 1,
      reviewsNeeded: human.length,
      reviewsDone: human.length,
      disputedAt: null,
      tolerance: 0.1,
    },
    category: null,
    slots: { writeTools: [] },
    ledger: {
      ledgerId: BigInt(id),
      status: "scored",
      source: "verifier",
      reward: ledger,
      rawReward: ledger,
      subscores: sub,
      guardrails: [],
      decidingGuardrail: null,
      claims: null,
      claimsSource: null,
      reasons: [],
      guardrailHits: [],
    },
    reviews: human.map((reward, j) => ({
      reviewId: BigInt(id * 10 + j),
      reviewerId: j,
      reviewerEmail: `r${j}@x.test`,
      reward,
      subscores: sub,
      guardrails: [],
      claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] },
      note: "",
      secondsSpent: 1,
      createdAt: new Date(T0 + (100 - id) * 1000),
    })),
    adjudication: null,
  };
}

// ledger/human: 1 agrees, 2 disagrees (0.5), 3 agrees, 4 disagrees (0.3), 5 has no ledger reward, 6 ties 2 on ledger
const ITEMS = [
  item(1, 0.9, [0.95]),
  item(2, 0.35, [0.85]),
  item(3, 0.6, [0.6]),
  item(4, 1, [0.7]),
  item(5, null, [0.4]),
  item(6, 0.35, [0.35, 0.9]),
];
const L = (over: Partial<ItemListing> = {}): ItemListing => ({
  sort: "item",
  dir: "asc",
  disagreementsFirst: false,
  size: 50,
  ...over,
});
const ids = (l: ItemListing, reviewer?: string) =>
  pageItems(ITEMS, l, 0.1, reviewer).rows.map((r) => Number(r.item.itemId));

describe("pageItems", () => {
  it("orders by each sort, nulls last in both directions, ties by item id in the same direction", () => {
    expect(ids(L())).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ids(L({ dir: "desc" }))).toEqual([6, 5, 4, 3, 2, 1]);
    expect(ids(L({ sort: "ledger" }))).toEqual([2, 6, 3, 1, 4, 5]);
    expect(ids(L({ sort: "ledger", dir: "desc" }))).toEqual([4, 1, 3, 6, 2, 5]);
    expect(ids(L({ sort: "human" }))).toEqual([6, 5, 3, 4, 2, 1]);
    // |human − ledger|: 0.05, 0.5, 0, 0.3, null, 0
    expect(ids(L({ sort: "delta", dir: "desc" }))).toEqual([2, 4, 1, 6, 3, 5]);
    expect(ids(L({ sort: "reviewed" }))).toEqual([6, 5, 4, 3, 2, 1]);
    expect(ids(L({ sort: "step", dir: "desc" }))).toEqual([6, 5, 4, 3, 2, 1]);
  });

  it("puts the disagreements beyond the tolerance first, each part in the sort's order", () => {
    const p = pageItems(ITEMS, L({ sort: "ledger", disagreementsFirst: true }), 0.1);
    expect(p.rows.map((r) => [Number(r.item.itemId), r.disagrees])).toEqual([
      [2, true],
      [4, true],
      [6, false],
      [3, false],
      [1, false],
      [5, false],
    ]);
  });

  it("compares the named reviewer's review when there is one", () => {
    const p = pageItems(ITEMS, L({ sort: "human", dir: "desc", disagreementsFirst: true }), 0.1, "r1@x.test");
    expect(p.rows[0].item.itemId).toBe(6n);
    expect(p.rows[0].shown.reward).toBe(0.9);
    expect(p.rows.filter((r) => r.disagrees).map((r) => Number(r.item.itemId))).toEqual([6, 2, 4]);
  });

  it("pages by key: after the last row, before the first, to the end and back, without gaps or repeats", () => {
    const l = L({ sort: "ledger", size: 4 });
    const p1 = pageItems(ITEMS, l, 0.1);
    expect([p1.rows.map((r) => Number(r.item.itemId)), p1.from, p1.total, p1.prev]).toEqual([[2, 6, 3, 1], 1, 6, null]);
    const p2 = pageItems(ITEMS, { ...l, after: p1.next! }, 0.1);
    expect([p2.rows.map((r) => Number(r.item.itemId)), p2.from, p2.next]).toEqual([[4, 5], 5, null]);
    const back = pageItems(ITEMS, { ...l, before: p2.prev! }, 0.1);
    expect(back.rows.map((r) => Number(r.item.itemId))).toEqual([2, 6, 3, 1]);
    expect(back.prev).toBeNull();
  });

  it("continues after a key whose row has gone (the list changed between pages)", () => {
    const l = L({ sort: "ledger", size: 2 });
    const gone = { rank: 1 as const, value: 0.5, id: 99n };
    expect(pageItems(ITEMS, { ...l, after: gone }, 0.1).rows.map((r) => Number(r.item.itemId))).toEqual([3, 1]);
    expect(pageItems(ITEMS, { ...l, before: gone }, 0.1).rows.map((r) => Number(r.item.itemId))).toEqual([2, 6]);
  });

  it("answers an empty list with an empty page", () => {
    expect(pageItems([], L(), 0.1)).toEqual({ rows: [], total: 0, from: 0, next: null, prev: null });
  });
});

describe("page keys", () => {
  it("round-trip through the URL form, nulls and exponents included", () => {
    for (const k of [
      { rank: 0 as const, value: 0.35, id: 12n },
      { rank: 1 as const, value: null, id: 9007199254740993n },
      { rank: 1 as const, value: 1e-7, id: 1n },
      { rank: 1 as const, value: -2, id: 3n },
    ]) {
      expect(decodeKey(encodeKey(k))).toEqual(k);
      expect(compareKeys(decodeKey(encodeKey(k))!, k, "asc")).toBe(0);
    }
  });

  it("refuses anything else", () => {
    for (const s of ["", "zz", "2_0.5_1", "1_0.5_", "1_abc_3", "1_0.5_1x"]) expect(decodeKey(s)).toBeNull();
  });
});
