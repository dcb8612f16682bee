import { rawClient } from "@/lib/db/raw-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeKey } from "@/lib/agreement/items-listing.ts";
import { parseAgreementItemsQuery, type ItemsQuery } from "@/lib/agreement/items-schema.ts";
import { loadAgreementItemsPage } from "@/lib/agreement/loaders.ts";
import { seedAgreementAudit } from "@/lib/testing/agreement-data.ts";

// The items list against a real database: every page is cut from the figure's population, and the order, the
// filters and the disagreements-first rank equal what plain SQL over the same tables says.
const url = process.env.DATABASE_URL!;

type Row = { id: string; ledger: number | null; human: number; reviewer: string };

let seeded: { runId: string; batchId: number; annotators: string[] };
let rows: Row[];

const query = (params: Record<string, string>): ItemsQuery => {
  const p = parseAgreementItemsQuery(params);
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.query;
};

/** Every page of a view, following the Next links' keys. */
async function allPages(params: Record<string, string>) {
  const ids: string[] = [];
  let after: string | undefined;
  for (let n = 0; n < 100; n++) {
    const page = await loadAgreementItemsPage(query({ ...params, ...(after ? { after } : {}) }));
    ids.push(...page.rows.map((r) => r.item.itemId.toString()));
    if (!page.next) return { ids, total: page.total };
    after = encodeKey(page.next);
  }
  throw new Error("no last page");
}

beforeAll(async () => {
  seeded = await seedAgreementAudit(url, "agree-items-run");
  const c = rawClient({ connectionString: url });
  await c.connect();
  try {
    // the primary (first current) review of each reviewed item of the batch, with its ledger entry
    rows = (
      await c.query<Row>(
        `select i.id::text as id, l.reward as ledger, r.reward as human, u.email as reviewer
           from audit_items i
           join ledger l on l.id = i.ledger_id
           join lateral (select * from reviews r where r.item_id = i.id and r.excluded_reason is null
                           and not exists (select 1 from reviews s where s.supersedes_id = r.id)
                         order by r.id limit 1) r on true
           join users u on u.id = r.reviewer_id
          where i.batch_id = $1
          order by i.id`,
        [seeded.batchId],
      )
    ).rows;
  } finally {
    await c.end();
  }
}, 120_000);

describe("loadAgreementItemsPage", () => {
  it("pages through every reviewed item of the batch by key, in the order SQL gives, without gaps or repeats", async () => {
    expect(rows.length).toBeGreaterThan(20);
    const base = { batch: String(seeded.batchId), size: "7" };
    const byId = await allPages(base);
    expect(byId).toEqual({ ids: rows.map((r) => r.id), total: rows.length });

    const byLedger = await allPages({ ...base, sort: "ledger", dir: "desc" });
    const expected = [...rows]
      .sort((a, b) => (b.ledger ?? -1) - (a.ledger ?? -1) || Number(BigInt(b.id) - BigInt(a.id)))
      .map((r) => r.id);
    expect(byLedger.ids).toEqual(expected);
  });

  it("puts the disagreements beyond the tolerance first", async () => {
    const page = await loadAgreementItemsPage(
      query({ batch: String(seeded.batchId), disagreementsFirst: "1", sort: "human", size: "200" }),
    );
    const disagree = rows.filter((r) => r.ledger !== null && Math.abs(r.human - r.ledger) > 0.1 + 1e-9);
    expect(disagree.length).toBeGreaterThan(0);
    expect(page.rows.slice(0, disagree.length).every((r) => r.disagrees)).toBe(true);
    expect(new Set(page.rows.slice(0, disagree.length).map((r) => r.item.itemId.toString()))).toEqual(
      new Set(disagree.map((r) => r.id)),
    );
    expect(page.rows.slice(disagree.length).some((r) => r.disagrees)).toBe(false);
    const humans = page.rows.slice(0, disagree.length).map((r) => r.shown.reward);
    expect(humans).toEqual([...humans].sort((a, b) => a - b));
  });

  it("keeps the annotator filter: only their items, their review shown", async () => {
    const who = seeded.annotators[1];
    const page = await loadAgreementItemsPage(query({ batch: String(seeded.batchId), annotator: who, size: "200" }));
    expect(page.total).toBeGreaterThan(0);
    expect(
      page.rows.every((r) => r.shown.reviewerEmail === who && r.reviews.every((x) => x.reviewerEmail === who)),
    ).toBe(true);
    expect(page.total).toBeLessThan(rows.length);
  });

  it("keeps the guardrail filter and the figure's cell: the total is the figure's population", async () => {
    const all = await loadAgreementItemsPage(query({ batch: String(seeded.batchId), size: "200" }));
    const flagged = await loadAgreementItemsPage(
      query({ batch: String(seeded.batchId), guardrail: "missing_evidence", size: "200" }),
    );
    expect(flagged.total).toBeGreaterThan(0);
    expect(flagged.total).toBeLessThan(all.total);
    for (const r of flagged.rows)
      expect(
        r.ledger.guardrails.includes("missing_evidence") ||
          r.reviews.some((x) => x.guardrails.includes("missing_evidence")),
      ).toBe(true);
    const disagree = await loadAgreementItemsPage(
      query({ batch: String(seeded.batchId), cell: "disagree", size: "5" }),
    );
    expect(disagree.total).toBe(
      rows.filter((r) => r.ledger !== null && Math.abs(r.human - r.ledger) > 0.1 + 1e-9).length,
    );
    expect(disagree.rows).toHaveLength(5);
  });
});

describe("parseAgreementItemsQuery", () => {
  it("names every bad value with its field, the list's and the figure's alike", () => {
    const p = parseAgreementItemsQuery({ sort: "bogus", dir: "up", size: "3", after: "zz", cell: "nope", batch: "x" });
    expect(p.ok).toBe(false);
    const errors = p.ok ? [] : p.errors.join("\n");
    for (const field of [
      "sort: must be one of",
      "dir: must be asc or desc",
      "size: must be between 5 and 200",
      "after: must be a page key",
      "cell: ",
      "batch: ",
    ])
      expect(errors).toContain(field);
    expect(parseAgreementItemsQuery({ after: "1_0.5_3", before: "1_0.5_4" })).toMatchObject({
      ok: false,
      errors: ["before: cannot be given with after"],
    });
  });
});
