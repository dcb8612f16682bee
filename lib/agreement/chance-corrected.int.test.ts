// κ, Gwet's AC1 and PABAK of the demo batches, as the agreement report computes them, against an independent
// implementation (lib/testing/agreement_reference.py: Python, written from the published formulas, its own t
// distribution) fed with the verdicts and flags read back with plain SQL.
import { spawnSync } from "node:child_process";
import { rawClient } from "@/lib/db/raw-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { seedDemoAudit } from "@/lib/demo/audit.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { seedRun } from "@/lib/testing/audit-data.ts";
import { type ScratchDatabase, useMigratedScratch } from "@/lib/testing/scratch-suite.ts";

type Reference = {
  tables: Record<
    string,
    {
      n: number;
      kappa: number | null;
      ac1: number;
      ac1_interval: [number, number] | null;
      pabak: number;
      pabak_interval: [number, number] | null;
      pa: { value: number; interval: [number, number] } | null;
      na: { value: number; interval: [number, number] } | null;
    } | null
  >;
  raw: Record<string, { n: number; ac1: number; ac1_interval: [number, number] | null } | null>;
};

function reference(input: { tables: Record<string, number[][]>; raw: Record<string, boolean[][]> }): Reference {
  const r = spawnSync("python3", ["lib/testing/agreement_reference.py"], { input: JSON.stringify(input) });
  if (r.status !== 0) throw new Error(`the reference failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

type ReviewRow = { item: string; batch: number; reviewer: number; h: number; l: number; hg: string[]; lg: string[] };

describe("κ, AC1 and PABAK on the demo batches", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  useMigratedScratch("chance_corrected", (s, c) => ((scratch = s), (client = c)));
  beforeAll(async () => {
    await createDemoUsersIfEmpty(client);
    await seedRun(scratch.url, {
      runId: "grpo-main",
      tickets: 400,
      variant: (i) => (i % 20 < 3 ? "missing_evidence" : i % 20 === 3 ? "empty_promise" : "honest"),
    });
    expect(await seedDemoAudit(scratch.url)).toMatch(/^demo shadow audit/);
  }, 180_000);

  it("equal the independent implementation per batch, on the verdict, per guardrail and between annotators", async () => {
    const c = rawClient({ connectionString: scratch.url });
    await c.connect();
    let rows: ReviewRow[];
    try {
      ({ rows } = await c.query<ReviewRow>(
        `select i.id::text as item, i.batch_id as batch, r.reviewer_id as reviewer, r.reward as h, l.reward as l,
                r.guardrails as hg,
                (select coalesce(array_agg(g.code::text), '{}') from ledger_guardrails g where g.ledger_id = l.id) as lg
           from reviews r join audit_items i on i.id = r.item_id join ledger l on l.id = i.ledger_id
          where l.reward is not null and r.excluded_reason is null
            and not exists (select 1 from reviews s where s.supersedes_id = r.id)
          order by i.id, r.created_at, r.id`,
      ));
    } finally {
      await c.end();
    }
    const batches = [...new Set(rows.map((r) => r.batch))];
    expect(batches.length).toBeGreaterThan(0);

    let compared = 0;
    for (const batch of batches) {
      const mine = rows.filter((r) => r.batch === batch);
      const byItem = new Map<string, ReviewRow[]>();
      for (const r of mine) byItem.set(r.item, [...(byItem.get(r.item) ?? []), r]);
      const primary = [...byItem.values()].map((rs) => rs[0]);
      const table = (pos: (r: ReviewRow) => [boolean, boolean]) => {
        const t = [
          [0, 0],
          [0, 0],
        ];
        for (const r of primary) {
          const [ledger, human] = pos(r);
          t[ledger ? 0 : 1][human ? 0 : 1]++;
        }
        return t;
      };
      const f = agreementFilterSchema.parse({ batch: String(batch) });
      const report = buildAgreementReport(await loadAgreementItems(f, client), f);
      const codes = report.guardrails.map((g) => g.code);
      const overlap = [...byItem.values()].filter((rs) => new Set(rs.map((r) => r.reviewer)).size > 1);
      const ref = reference({
        tables: {
          verdict: table((r) => [r.l >= 0.9, r.h >= 0.9]),
          ...Object.fromEntries(codes.map((code) => [code, table((r) => [r.lg.includes(code), r.hg.includes(code)])])),
        },
        raw: { verdict: overlap.map((rs) => rs.map((r) => r.h >= 0.9)) },
      });

      const v = report.verdict!;
      const rv = ref.tables.verdict!;
      expect(v.prevalence.n).toBe(rv.n);
      expect(v.kappa ?? null).toBeCloseTo(rv.kappa ?? NaN, 10);
      expect(v.ac1.value!).toBeCloseTo(rv.ac1, 10);
      expect(v.pabak.value!).toBeCloseTo(rv.pabak, 10);
      expect([v.ac1.interval!.lower, v.ac1.interval!.upper]).toEqual(rv.ac1_interval!.map((x) => expect.closeTo(x, 6)));
      expect([v.pabak.interval!.lower, v.pabak.interval!.upper]).toEqual(
        rv.pabak_interval!.map((x) => expect.closeTo(x, 6)),
      );
      for (const [fig, x] of [
        [v.positiveAgreement, rv.pa],
        [v.negativeAgreement, rv.na],
      ] as const) {
        if (x === null) expect(fig.value).toBeNull();
        else {
          expect(fig.value!).toBeCloseTo(x.value, 12);
          expect([fig.interval!.lower, fig.interval!.upper]).toEqual(x.interval.map((b) => expect.closeTo(b, 10)));
        }
      }
      // κ's interval is a seeded bootstrap (no closed form to compare with): it must hold the point
      expect(v.interval!.lower).toBeLessThanOrEqual(v.kappa!);
      expect(v.interval!.upper).toBeGreaterThanOrEqual(v.kappa!);
      for (const g of report.guardrails) {
        const rg = ref.tables[g.code]!;
        expect(g.prevalence.n).toBe(rg.n);
        expect(g.figures.ac1.value!).toBeCloseTo(rg.ac1, 10);
        expect(g.figures.pabak.value!).toBeCloseTo(rg.pabak, 10);
        expect(g.figures.positiveAgreement.value!).toBeCloseTo(rg.pa!.value, 12);
        expect(g.figures.ac1.interval!.lower).toBeCloseTo(rg.ac1_interval![0], 6);
        expect(g.figures.ac1.interval!.upper).toBeCloseTo(rg.ac1_interval![1], 6);
        if (rg.kappa === null) expect(g.figures.kappa.value).toBeNull();
        else expect(g.figures.kappa.value!).toBeCloseTo(rg.kappa, 10);
        compared++;
      }
      const ia = ref.raw.verdict;
      if (ia) {
        expect(report.interAnnotator.verdict.ac1.value!).toBeCloseTo(ia.ac1, 10);
        expect(report.interAnnotator.verdict.ac1.interval!.lower).toBeCloseTo(ia.ac1_interval![0], 6);
        expect(report.interAnnotator.verdict.ac1.interval!.upper).toBeCloseTo(ia.ac1_interval![1], 6);
        compared++;
      } else expect(report.interAnnotator.verdict.ac1.value).toBeNull();
      compared++;
    }
    expect(compared).toBeGreaterThan(batches.length);
  }, 120_000);

  it("reads each class's own agreement where prevalence is extreme and says so", async () => {
    const f = agreementFilterSchema.parse({});
    const report = buildAgreementReport(await loadAgreementItems(f, client), f);
    expect(report.prevalenceNote).toMatch(/read the positive and negative agreement/);
    for (const g of report.guardrails) {
      const extreme = [g.prevalence.ledger!, g.prevalence.human!].some((p) => p > 0.9 || p < 0.1);
      expect(g.read).toBe(extreme ? "specific" : "kappa");
    }
  });
});
