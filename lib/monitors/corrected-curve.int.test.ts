import { beforeAll, describe, expect, it } from "vitest";
import { correctedCurve } from "@/lib/monitors/corrected-curve.ts";
import { db } from "@/lib/db/client.ts";
import { makeUsers, seedRun, uniqueName, type Variant } from "@/lib/testing/audit-data.ts";

// A run whose ledger and audit are known by hand: window [0, 1000) holds 24 tickets × 2 rollouts at step 10, every
// third ticket refunding before reading (a capped failure), the rest honest (reward 1). Tickets 0–11 are audited
// whole, tickets 0–3 at π = 0.5 and 4–11 at π = 0.25 (so the audit's weighted ledger share, 56/80, is not the
// window's 2/3: the estimate must take the window's); the humans fail the ledger's successes on tickets 1 and 2 and
// pass its failure on ticket 0. Besides: an excluded review, a superseded one and a second opinion, none of which may
// count; a window at step 1500 with three audited tickets (thin, so pooled with its neighbour); and one at step 5000
// with two (thin even pooled).
const url = process.env.DATABASE_URL!;
const runId = uniqueName("corrected");
const HUMAN_PASS = 1;
const HUMAN_FAIL = 0.3;

type Entry = { id: bigint; rolloutId: bigint | null; trajectoryId: string; ticketId: string; reward: number | null };

async function entries(step: number): Promise<Entry[]> {
  return db().ledgerEntry.findMany({
    where: { runId, step, isCurrent: true },
    select: { id: true, rolloutId: true, trajectoryId: true, ticketId: true, reward: true },
    orderBy: { trajectoryId: "asc" },
  });
}

const ticketNo = (e: Entry) => Number(e.ticketId.split("/T")[1]);

describe("correctedCurve", () => {
  let failReward = 0;

  beforeAll(async () => {
    await db().run.create({ data: { id: runId } });
    const variant = (t: number): Variant => (t % 3 === 0 ? "missing_evidence" : "honest");
    await seedRun(url, { runId, tickets: 24, perTicket: 2, step: 10, variant });
    await seedRun(url, { runId, tickets: 3, perTicket: 2, step: 1500 });
    await seedRun(url, { runId, tickets: 2, perTicket: 1, step: 5000 });
    const [a1, a2] = await makeUsers(db(), 2);
    const batch = await db().auditBatch.create({
      data: { name: "hand-made", runId, stepFrom: 0, stepTo: 6000, rate: 0.5, salt: "s", pick: "all" },
      select: { id: true },
    });
    const review = (
      itemId: bigint,
      reward: number,
      extra: { excludedReason?: string; supersedesId?: bigint; reviewerId?: number } = {},
    ) =>
      db().review.create({
        data: {
          itemId,
          reviewerId: a1.userId,
          outcome: reward,
          policy: 1,
          evidence: 1,
          efficiency: 1,
          communication: 1,
          guardrails: [],
          reward,
          claims: {},
          secondsSpent: 30,
          ...extra,
        },
        select: { id: true },
      });
    const item = (e: Entry, pi: number) =>
      db().auditItem.create({
        data: {
          batchId: batch.id,
          runId,
          rolloutId: e.rolloutId!,
          ledgerId: e.id,
          trajectoryId: e.trajectoryId,
          ticketId: e.ticketId,
          inclusionProb: pi,
        },
        select: { id: true },
      });

    const window0 = await entries(10);
    expect(window0).toHaveLength(48);
    failReward = window0.find((e) => ticketNo(e) === 0)!.reward!;
    expect(failReward).toBeLessThan(0.9);
    for (const e of window0) {
      const t = ticketNo(e);
      if (t === 12) {
        // an excluded review of an audited rollout: left out entirely (the item is not an audited one)
        const i = await item(e, 0.5);
        await review(i.id, HUMAN_FAIL, { excludedReason: "author's role (admin) can read the ledger" });
      }
      if (t > 11) continue;
      const ledgerPass = t % 3 !== 0;
      const humanPass = (ledgerPass && t !== 1 && t !== 2) || t === 0;
      const i = await item(e, t < 4 ? 0.5 : 0.25);
      if (t === 4) {
        // a corrected review: the correction counts, not the first reading
        const first = await review(i.id, HUMAN_FAIL);
        await review(i.id, HUMAN_PASS, { supersedesId: first.id });
      } else if (t === 5) {
        // a second opinion after the first: only the first counts, as on the agreement page
        await review(i.id, HUMAN_PASS);
        await review(i.id, HUMAN_FAIL, { reviewerId: a2.userId });
      } else {
        await review(i.id, humanPass ? HUMAN_PASS : HUMAN_FAIL);
      }
    }
    for (const e of await entries(1500)) await review((await item(e, 1)).id, HUMAN_PASS);
    for (const e of await entries(5000)) await review((await item(e, 1)).id, HUMAN_PASS);
  });

  it("is null for an unknown run and refuses a bad window", async () => {
    expect(await correctedCurve(db(), "no-such-run")).toBeNull();
    await expect(correctedCurve(db(), runId, { windowSteps: 0 })).rejects.toThrow(/positive integer, got 0/);
    await expect(correctedCurve(db(), runId, { windowSteps: 2.5 })).rejects.toThrow(/got 2.5/);
  });

  it("corrects a window by its inclusion-weighted PPV and NPV, counting each item's first counted review", async () => {
    const curve = await correctedCurve(db(), runId, { windowSteps: 1000 });
    expect(curve?.windowSteps).toBe(1000);
    const [w0, w1, w5] = curve!.windows;
    expect(curve!.windows.map((w) => [w.stepFrom, w.stepTo, w.n])).toEqual([
      [0, 999, 48],
      [1000, 1999, 6],
      [5000, 5999, 2],
    ]);
    expect(w0.ledgerSuccess).toBeCloseTo(32 / 48, 12);
    expect(w0.audited).toEqual({ items: 24, tickets: 12 });
    expect(w0.pooled).toBe(false);
    expect(w0.thin).toBeUndefined();
    // ledger successes audited: T1, T2 (weight 2, failed by the humans), T4, T5, T7, T8, T10, T11 (weight 4, passed),
    // two rollouts each: PPV = Σw[L∧H]/Σw[L] = 48/56 = 6/7. Ledger failures: T0 (weight 2, passed by the humans), T3
    // (2), T6, T9 (4): 1 − NPV = Σw[¬L∧H]/Σw[¬L] = 4/24 = 1/6. Two-phase, with the window's p = 32/48 = 2/3:
    // 2/3·6/7 + 1/3·1/6 = 4/7 + 1/18 = 79/126 (Rogan–Gladen from the same audit: Se 48/52, Sp 20/28, 0.598)
    expect(w0.corrected!.rate).toBeCloseTo(79 / 126, 12);
    expect(w0.corrected!.lo).toBeLessThan(79 / 126);
    expect(w0.corrected!.hi).toBeGreaterThan(79 / 126);
    // mean reward: the ledger's plus Σw(h − l)/Σw, Σw = 4·2·2 + 8·2·4 = 80
    const ledgerMean = (32 + 16 * failReward) / 48;
    const diff =
      ((HUMAN_FAIL - 1) * 2 * 4 + (HUMAN_PASS - failReward) * 2 * 2 + (HUMAN_FAIL - failReward) * (2 * 2 + 4 * 4)) / 80;
    expect(w0.meanReward!.ledger).toBeCloseTo(ledgerMean, 12);
    expect(w0.meanReward!.corrected).toBeCloseTo(ledgerMean + diff, 12);
    expect(w0.meanReward!.lo).toBeLessThan(ledgerMean + diff);
    expect(w0.meanReward!.hi).toBeGreaterThan(ledgerMean + diff);
    // the same audit gives the same band
    // (computed afresh: settings of its own bypass the cache)
    expect((await correctedCurve(db(), runId, { windowSteps: 1000, bootstrap: {} }))!.windows[0]).toEqual(w0);

    // step 1500: three tickets of its own, pooled with its neighbours (window 0 holds the evidence)
    expect(w1.audited).toEqual({ items: 6, tickets: 3 });
    expect(w1.pooled).toBe(true);
    // its tickets T0–T2 are tickets of window 0 too: a ticket is one resampling unit across steps
    expect(w1.evidence).toEqual({ stepFrom: 0, stepTo: 2999, items: 30, tickets: 12 });
    expect(w1.ledgerSuccess).toBe(1);
    expect(w1.corrected).not.toBeNull();

    // step 5000: two tickets, and nothing within two windows either side
    expect(w5.audited).toEqual({ items: 2, tickets: 2 });
    expect(w5.corrected).toBeNull();
    expect(w5.meanReward).toBeNull();
    expect(w5.thin).toBe("2 audited rollouts, fewer than 20 (pooled over steps 3000–7999)");
  });

  it("uses the run's audit window by default", async () => {
    // the default audit window is 500 steps: window 0 is [0, 500)
    const curve = await correctedCurve(db(), runId);
    expect(curve!.windowSteps).toBe(500);
    expect(curve!.windows[0]).toMatchObject({ stepFrom: 0, stepTo: 499, n: 48 });
  });

  it("is reused while the run's rollups and reviews are unchanged, and recomputed after a review", async () => {
    const first = await correctedCurve(db(), runId, { windowSteps: 1000 });
    expect(await correctedCurve(db(), runId, { windowSteps: 1000 })).toBe(first);
    expect(await correctedCurve(db(), runId, { windowSteps: 500 })).not.toBe(first);
    // a second opinion on an audited item: it does not count, so the curve is the same, but it is computed again
    const [late] = await makeUsers(db(), 1);
    const item = await db().auditItem.findFirstOrThrow({ where: { runId }, select: { id: true } });
    await db().review.create({
      data: {
        itemId: item.id,
        reviewerId: late.userId,
        ...{ outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: 1, reward: 1 },
        guardrails: [],
        claims: {},
        secondsSpent: 30,
      },
    });
    const after = await correctedCurve(db(), runId, { windowSteps: 1000 });
    expect(after).not.toBe(first);
    expect(after).toEqual(first);
  });
});
