import { rawClient } from "@/lib/db/raw-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { agreementResponse } from "@/lib/agreement/respond.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers, seedRun, uniqueName, type Variant, fullMarksReview } from "@/lib/testing/audit-data.ts";
import { db, poolOf } from "@/lib/db/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { agreementRate, guardrailAgreement, successVerdictKappa } from "@/lib/stats/agreement.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

// Reviews built through the real queue and submit path; the report (and the API's JSON) must equal the pure
// statistics applied to pairs read back independently with plain SQL.
const url = process.env.DATABASE_URL!;
const perfect: ReviewBody = fullMarksReview();
const weak: ReviewBody = {
  ...perfect,
  subscores: { outcome: 0, policy: 0.5, evidence: 0, efficiency: 1, communication: 0 },
  guardrails: ["empty_promise"],
};

describe("agreement report on a real database", () => {
  let runId: string;
  let batchId: number;

  beforeAll(async () => {
    runId = uniqueName("agree-run");
    await db()
      .run.create({ data: { id: runId } })
      .catch(() => undefined);
    // 40 tickets: every 4th claims a refund that never happened (empty promise), every 5th refunds before reading
    const variant = (t: number): Variant =>
      t % 4 === 0 ? "empty_promise" : t % 5 === 0 ? "missing_evidence" : "honest";
    await seedRun(url, { runId, tickets: 40, variant });
    const b = await createBatch(
      { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "agree", pick: "one", overlapRate: 0, tolerance: 0.1 },
      { label: "test" },
    );
    if (!b.ok) throw new Error(b.error);
    batchId = b.batchId;
    const [ann] = await makeUsers(db(), 1);
    // The annotator agrees on honest and empty-promise rollouts, but scores missing-evidence ones as perfect and
    // every 7th honest one as weak: a known mix of agreement and disagreement.
    for (let n = 0; ; n++) {
      const lease = await claimNextItem(ann.userId, { batchId });
      if (!lease) break;
      const item = await db().auditItem.findUniqueOrThrow({ where: { id: lease.itemId }, select: { ticketId: true } });
      const t = Number(item.ticketId.split("/T")[1]);
      const body = t % 4 === 0 ? weak : t % 5 === 0 ? perfect : t % 7 === 0 ? weak : perfect;
      const r = await submitReview(lease.itemId, ann, body, 30);
      if (!r.ok) throw new Error(r.error);
      expect(n).toBeLessThan(100);
    }
  });

  async function pairsBySql() {
    const c = rawClient({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query<{ human: number; ledger: number; hg: string[]; mask: number }>(
        `select r.reward as human, l.reward as ledger, r.guardrails as hg, l.guardrail_mask as mask
           from reviews r join audit_items i on i.id = r.item_id join ledger l on l.id = i.ledger_id
          where i.batch_id = $1 and l.reward is not null order by r.id`,
        [batchId],
      );
      return rows;
    } finally {
      await c.end();
    }
  }

  it("equals the pure statistics over the stored pairs", async () => {
    const f = agreementFilterSchema.parse({ batch: batchId });
    const report = buildAgreementReport(await loadAgreementItems(f), f);
    const rows = await pairsBySql();
    expect(rows).toHaveLength(40);
    const direct = agreementRate(
      rows.map((r) => ({ human: r.human, ledger: r.ledger })),
      { tolerance: 0.1 },
    )!;
    expect(report.headline.n).toBe(40);
    expect(report.headline.k).toBe(direct.agreeing);
    // the known mix that disagrees: 10 empty promises (ledger 0.35 cap, human 0.2), 6 missing-evidence rollouts
    // (ledger 0.55, human 1: tickets 5, 10, 15, 25, 30, 35) and 3 honest ones scored weak (tickets 7, 14, 21)
    expect(40 - direct.agreeing).toBe(10 + 6 + 3);
    expect(report.verdict?.kappa).toBeCloseTo(
      successVerdictKappa(rows.map((r) => ({ human: r.human, ledger: r.ledger })))!.kappa!,
      12,
    );
    const codes = (mask: number) => GUARDRAIL_CODES.filter((_, i) => (mask & (1 << i)) !== 0);
    const directGuardrails = guardrailAgreement(
      rows.map((r) => ({ ledger: codes(r.mask), human: r.hg })),
      GUARDRAIL_CODES,
    ).filter((g) => g.tp + g.fp + g.fn > 0);
    expect(report.guardrails.map((g) => [g.code, g.tp, g.fp, g.fn, g.tn])).toEqual(
      directGuardrails.map((g) => [g.code, g.tp, g.fp, g.fn, g.tn]),
    );
    expect(report.guardrails.find((g) => g.code === "empty_promise")).toMatchObject({ tp: 10, fn: 3, fp: 0 });
    expect(report.guardrails.find((g) => g.code === "missing_evidence")).toMatchObject({ fp: 6, tp: 0 });
  });

  it("is the same report from the lean load, which leaves out only the entries' reasons and guardrail hits and the reviews' notes and times", async () => {
    for (const over of [{ batch: batchId }, { batch: batchId, basis: "now" }]) {
      const f = agreementFilterSchema.parse(over);
      const full = await loadAgreementItems(f);
      const lean = await loadAgreementItems(f, undefined, { lean: true });
      // the full load has reasons and hits to leave out (the empty promises and missing evidence carry both)
      expect(full.some((i) => i.ledger.reasons.length > 0 && i.ledger.guardrailHits.length > 0)).toBe(true);
      const blank = (l: (typeof full)[number]["ledger"] | null) => l && { ...l, reasons: [], guardrailHits: [] };
      expect(full.some((i) => i.reviews.some((r) => r.secondsSpent > 0))).toBe(true);
      const unnoted = (rs: (typeof full)[number]["reviews"] | undefined) =>
        rs?.map((r) => ({ ...r, note: "", secondsSpent: 0 }));
      expect(lean).toEqual(
        full.map((i) => ({
          ...i,
          reviews: unnoted(i.reviews),
          excluded: unnoted(i.excluded),
          ledger: blank(i.ledger),
          bases: i.bases && { ...i.bases, reviewed: blank(i.bases.reviewed), now: blank(i.bases.now) },
        })),
      );
      expect(buildAgreementReport(lean, f)).toStrictEqual(buildAgreementReport(full, f));
    }
  });

  it("is the lean load without claims, case slots or current entries when only the verdicts are read, and the same verdict figures", async () => {
    const f = agreementFilterSchema.parse({ batch: batchId });
    const lean = await loadAgreementItems(f, undefined, { lean: true });
    const verdicts = await loadAgreementItems(f, undefined, { verdictsOnly: true });
    // the lean load has claims, slots and both entries of every item to leave out
    const has = {
      ledgerClaims: lean.some((i) => i.ledger.claims !== null),
      reviewClaims: lean.some((i) => i.reviews.some((r) => r.claims.claimed_writes.length > 0)),
      slots: lean.some((i) => i.slots.writeTools.length > 0),
      bases: lean.every((i) => i.bases?.now),
    };
    expect(has).toEqual({ ledgerClaims: true, reviewClaims: true, slots: true, bases: true });
    const unclaimed = (rs: (typeof lean)[number]["reviews"] | undefined) =>
      rs?.map((r) => ({ ...r, claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] } }));
    expect(verdicts).toEqual(
      lean.map((i) => ({
        ...i,
        bases: undefined,
        slots: { writeTools: [] },
        ledger: { ...i.ledger, claims: null },
        reviews: unclaimed(i.reviews),
        excluded: unclaimed(i.excluded),
      })),
    );
    expect(verdicts.every((i) => !("bases" in i))).toBe(true);
    const figures = (r: ReturnType<typeof buildAgreementReport>) => [r.headline, r.guardrails];
    expect(figures(buildAgreementReport(verdicts, f))).toStrictEqual(figures(buildAgreementReport(lean, f)));
    await expect(
      loadAgreementItems(agreementFilterSchema.parse({ batch: batchId, basis: "now" }), undefined, {
        verdictsOnly: true,
      }),
    ).rejects.toThrow(/basis "now"/);
  });

  it("reads the same items straight from the pool as through Prisma's $queryRaw (in a transaction)", async () => {
    expect(poolOf(db())).not.toBeNull();
    for (const over of [{ batch: batchId }, { batch: batchId, basis: "now" }, { run: runId }]) {
      const f = agreementFilterSchema.parse(over);
      const direct = await loadAgreementItems(f, db());
      const viaPrisma = await db().$transaction((tx) => loadAgreementItems(f, tx));
      expect(direct.length).toBe(40);
      // bigint ids, Date times and parsed JSON alike, field by field
      expect(direct).toStrictEqual(viaPrisma);
      expect(typeof direct[0].item.itemId).toBe("bigint");
      expect(direct.some((i) => i.reviews[0]?.createdAt instanceof Date)).toBe(true);
    }
  });

  it("serves the same figures as JSON through the API's code path", async () => {
    const res = await agreementResponse(`http://x/api/v1/agreement?batch=${batchId}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      headline: { k: number; n: number };
      guardrails: { code: string; fp: number }[];
    };
    expect(body.headline).toMatchObject({ k: 21, n: 40 });
    expect(body.guardrails.find((g) => g.code === "missing_evidence")?.fp).toBe(6);
  });

  it("answers a bad filter with 400 and the field", async () => {
    const res = await agreementResponse("http://x/api/v1/agreement?batch=abc&colour=red");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('unknown filter "colour"');
  });
});
