import { describe, expect, it } from "vitest";
import {
  correctedMeanReward,
  correctedSuccessRate,
  thinReason,
  twoPhaseRate,
  weightedPredictiveValues,
  type AuditedVerdict,
} from "@/lib/stats/corrected-rate.ts";
import { mulberry32, type Rng } from "@/lib/stats/prng.ts";

const v = (ticket: string, ledger: boolean, human: boolean, pi = 1, rewards?: [number, number]): AuditedVerdict => ({
  ticket,
  ledger,
  human,
  ledgerReward: rewards?.[0] ?? (ledger ? 1 : 0.4),
  humanReward: rewards?.[1] ?? (human ? 1 : 0.4),
  inclusionProbability: pi,
});

describe("twoPhaseRate", () => {
  it("is p·PPV + (1 − p)·(1 − NPV), by hand", () => {
    // 0.6·0.9 + 0.4·(1 − 0.8) = 0.54 + 0.08
    expect(twoPhaseRate(0.6, 0.9, 0.8)).toBeCloseTo(0.62, 12);
    // a ledger the humans always confirm changes nothing
    expect(twoPhaseRate(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    // a ledger no better than chance (PPV = 1 − NPV) says nothing: the humans' own rate, whatever p
    expect(twoPhaseRate(0.9, 0.5, 0.5)).toBeCloseTo(0.5, 12);
    expect(twoPhaseRate(0.1, 0.5, 0.5)).toBeCloseTo(0.5, 12);
  });

  it("needs only the predictive value of a verdict the window has", () => {
    expect(twoPhaseRate(0, null, 0.75)).toBeCloseTo(0.25, 12);
    expect(twoPhaseRate(1, 0.75, null)).toBeCloseTo(0.75, 12);
    expect(() => twoPhaseRate(0.5, null, 0.75)).toThrow(/positive predictive value is needed when p > 0/);
    expect(() => twoPhaseRate(0.5, 0.75, null)).toThrow(/negative predictive value is needed when p < 1/);
  });

  it("refuses shares outside [0, 1]", () => {
    expect(() => twoPhaseRate(1.2, 0.9, 0.9)).toThrow(/observed share must be in \[0, 1\], got 1.2/);
    expect(() => twoPhaseRate(0.5, Number.NaN, 0.9)).toThrow(/positive predictive value/);
    expect(() => twoPhaseRate(0.5, 0.9, -0.1)).toThrow(/negative predictive value/);
  });
});

describe("weightedPredictiveValues", () => {
  it("weights each rollout by 1/π", () => {
    const items = [
      v("a", true, true, 0.5), // weight 2: a ledger success the human confirms
      v("a", true, false, 1), // weight 1: a ledger success the human fails
      v("b", false, false, 0.25), // weight 4: a ledger failure the human confirms
      v("b", false, true, 1), // weight 1: a ledger failure the human passes
    ];
    const r = weightedPredictiveValues(items);
    expect(r.ppv).toBeCloseTo(2 / 3, 12);
    expect(r.npv).toBeCloseTo(4 / 5, 12);
    expect([r.ledgerSuccesses, r.ledgerFailures]).toEqual([2, 2]);
    // unweighted, both would be 1/2
    const equal = weightedPredictiveValues(items.map((i) => ({ ...i, inclusionProbability: 0.1 })));
    expect([equal.ppv, equal.npv]).toEqual([0.5, 0.5]);
  });

  it("has no PPV without ledger successes and no NPV without ledger failures", () => {
    expect(weightedPredictiveValues([v("a", false, true)])).toMatchObject({ ppv: null, npv: 0 });
    expect(weightedPredictiveValues([v("a", true, true)])).toMatchObject({ ppv: 1, npv: null });
  });

  it("refuses an inclusion probability outside (0, 1]", () => {
    expect(() => weightedPredictiveValues([v("a", true, true, 0)])).toThrow(/\(0, 1\], got 0/);
    expect(() => weightedPredictiveValues([v("a", true, true, 1.5)])).toThrow(/got 1.5/);
  });
});

/** n tickets of k rollouts, the first `successes` rollouts (in ticket order) human successes, the ledger agreeing. */
function audit(tickets: number, k: number, successes: number): AuditedVerdict[] {
  const out: AuditedVerdict[] = [];
  for (let t = 0; t < tickets; t++)
    for (let j = 0; j < k; j++) {
      const human = out.length < successes;
      out.push(v(`t${t}`, human, human));
    }
  return out;
}

describe("thin audits", () => {
  it("names what is missing", () => {
    expect(thinReason(audit(5, 2, 5), 0.5)).toBe("10 audited rollouts, fewer than 20");
    expect(thinReason(audit(9, 4, 10), 0.5)).toBe("9 audited tickets, fewer than 10");
    expect(thinReason(audit(20, 1, 2), 0.5)).toBe(
      "2 audited ledger successes, fewer than 3: no positive predictive value",
    );
    expect(thinReason(audit(20, 1, 18), 0.5)).toBe(
      "2 audited ledger failures, fewer than 3: no negative predictive value",
    );
    expect(thinReason(audit(20, 1, 10), 0.5)).toBeNull();
    // a window the ledger passes (or fails) whole needs no predictive value of the other verdict
    expect(thinReason(audit(20, 1, 2), 0)).toBeNull();
    expect(thinReason(audit(20, 1, 18), 1)).toBeNull();
    expect(thinReason(audit(20, 1, 18), null)).toMatch(/no negative predictive value/);
    const thin = correctedSuccessRate(0.5, audit(20, 1, 2));
    expect(thin).toEqual({
      ok: false,
      reason: "2 audited ledger successes, fewer than 3: no positive predictive value",
    });
    expect(correctedMeanReward(0.5, audit(9, 4, 10))).toEqual({
      ok: false,
      reason: "9 audited tickets, fewer than 10",
    });
  });
});

describe("correctedSuccessRate", () => {
  // 30 tickets of one rollout: the ledger passes 15 of which the humans pass 9 (PPV 0.6), and fails 15 of which the
  // humans fail 12 (NPV 0.8)
  const items: AuditedVerdict[] = [];
  for (let t = 0; t < 30; t++) items.push(v(`t${t}`, t < 9 || t >= 24, t < 12));

  it("is the two-phase rate of the window's census share and the audit's weighted PPV and NPV, reproducibly", () => {
    // the window's ledger passes 70%, more than the audit's 50%: 0.7·0.6 + 0.3·(1 − 0.8) = 0.48 (Rogan–Gladen, with
    // Se 0.75 and Sp 2/3 from the same audit, would say (0.7 + 2/3 − 1)/(0.75 + 2/3 − 1) = 0.88)
    const r = correctedSuccessRate(0.7, items, { iterations: 400, seed: 3 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.ppv).toBeCloseTo(0.6, 12);
    expect(r.npv).toBeCloseTo(0.8, 12);
    expect(r.rate).toBeCloseTo(0.48, 12);
    expect(r.lo).toBeLessThan(0.48);
    expect(r.hi).toBeGreaterThan(0.48);
    expect([r.items, r.tickets, r.iterations, r.undefinedResamples]).toEqual([30, 30, 400, 0]);
    expect(correctedSuccessRate(0.7, items, { iterations: 400, seed: 3 })).toEqual(r);
    expect(correctedSuccessRate(0.7, items, { iterations: 400, seed: 4 })).not.toEqual(r);
  });

  it("weights the audit within each ledger verdict: oversampling the ledger's failures does not move the estimate", () => {
    // the same verdicts, the ledger failures audited at 4 times the ledger successes' rate: PPV and NPV unchanged
    const oversampled = items.map((i) => ({ ...i, inclusionProbability: i.ledger ? 0.1 : 0.4 }));
    const r = correctedSuccessRate(0.7, oversampled, { iterations: 200, seed: 3 });
    expect(r.ok && r.rate).toBeCloseTo(0.48, 12);
  });

  it("is defined where the ledger's verdict is no better than chance: the humans' own rate", () => {
    // PPV = 0.5 and NPV = 0.5 (Se + Sp − 1 = 0, where Rogan–Gladen has no answer)
    const chance: AuditedVerdict[] = [];
    for (let t = 0; t < 24; t++) chance.push(v(`t${t}`, t % 2 === 0, t % 4 < 2));
    const r = correctedSuccessRate(0.8, chance, { iterations: 200 });
    expect(r.ok && r.rate).toBeCloseTo(0.5, 12);
  });

  it("bounds a resample without an audited ledger success by that verdict's share, not by [0, 1]", () => {
    // one ticket holds the audit's 3 ledger successes (the humans pass them), 19 tickets one ledger failure each (the
    // humans fail them): PPV 1, NPV 1, and at p = 0.1 the rate is 0.1. About (19/20)^20 ≈ 36% of the resamples miss
    // that ticket; each then takes PPV at 0 for the lower bound and at 1 for the upper: [0, 0.1], where counting the
    // whole rate at 0 and 1 made it [0, 1].
    const few = [0, 1, 2].map(() => v("t0", true, true));
    for (let t = 1; t < 20; t++) few.push(v(`t${t}`, false, false));
    const r = correctedSuccessRate(0.1, few, { iterations: 500, seed: 7 });
    expect(r.ok && [r.rate, r.lo, r.hi]).toEqual([expect.closeTo(0.1, 12), 0, expect.closeTo(0.1, 12)]);
    expect(r.ok && r.undefinedResamples).toBeGreaterThan(100);
  });

  it("corrects a window the ledger passes whole from its ledger successes alone, however few its failures", () => {
    // 18 ledger successes the humans confirm, 2 failures (too few for an NPV, which a share of 1 does not need)
    const r = correctedSuccessRate(1, audit(20, 1, 18), { iterations: 200 });
    expect(r.ok && [r.rate, r.ppv, r.npv]).toEqual([1, 1, 1]);
  });
});

// ---- Coverage over simulated audits --------------------------------------------------------------------------------

/**
 * A simulated window: 1,000 tickets of 4 rollouts. Tickets are easy (human success 0.95) or hard (0.1), so a ticket's
 * rollouts are correlated; refund tickets (half) are harder and fool the ledger more often (false success 0.45 vs
 * 0.1) and are audited at π = 0.12 against 0.04 elsewhere, so unweighted PPV/NPV would be biased. The audit takes whole
 * tickets (all four rollouts), each independently with its π.
 */
function simulate(rng: Rng) {
  const K = 4;
  const population: { ticket: string; ledger: boolean; human: boolean; lr: number; hr: number; pi: number }[] = [];
  for (let t = 0; t < 1000; t++) {
    const refund = t % 2 === 0;
    const easy = rng() < (refund ? 0.4 : 0.7);
    const fooled = rng() < 0.5; // ledger errors cluster by ticket too
    const falseSuccess = (refund ? 0.45 : 0.1) * (fooled ? 1.8 : 0.2);
    for (let j = 0; j < K; j++) {
      const human = rng() < (easy ? 0.95 : 0.1);
      const ledger = human ? rng() < 0.92 : rng() < falseSuccess;
      const hr = human ? 0.9 + 0.1 * rng() : 0.6 * rng();
      // the ledger's reward agrees with its verdict: ≥ 0.9 exactly when it passes the rollout
      const lr = ledger ? 0.9 + 0.1 * rng() : Math.min(0.89, hr * (0.8 + 0.4 * rng()));
      population.push({ ticket: `t${t}`, ledger, human, lr, hr, pi: refund ? 0.12 : 0.04 });
    }
  }
  const n = population.length;
  const truth = population.filter((p) => p.human).length / n;
  const observed = population.filter((p) => p.ledger).length / n;
  const trueMean = population.reduce((a, p) => a + p.hr, 0) / n;
  const ledgerMean = population.reduce((a, p) => a + p.lr, 0) / n;
  const included = new Set<string>();
  for (let t = 0; t < 1000; t++) if (rng() < (t % 2 === 0 ? 0.12 : 0.04)) included.add(`t${t}`);
  const items: AuditedVerdict[] = population
    .filter((p) => included.has(p.ticket))
    .map((p) => ({
      ticket: p.ticket,
      ledger: p.ledger,
      human: p.human,
      ledgerReward: p.lr,
      humanReward: p.hr,
      inclusionProbability: p.pi,
    }));
  return { truth, observed, trueMean, ledgerMean, items };
}

describe("coverage of the 95% interval over simulated audits", () => {
  // 400 audits: the share covering is binomial with sd √(0.95·0.05/400) ≈ 1.1 points, so ±3.5 points (about three
  // sd) around 95% separates an honest interval from one that ignores the ticket correlation (which covers ~85–89%
  // here, checked below) without failing by chance (p ≈ 0.002).
  const SIMULATIONS = 400;
  const TOLERANCE = 0.035;

  it("covers the true rate and the true mean reward about 95% of the time, and ignoring tickets does not", () => {
    const rng = mulberry32(42);
    let rateCovered = 0;
    let meanCovered = 0;
    let naiveCovered = 0;
    let defined = 0;
    for (let s = 0; s < SIMULATIONS; s++) {
      const sim = simulate(rng);
      const r = correctedSuccessRate(sim.observed, sim.items, { iterations: 300, seed: s + 1 });
      const m = correctedMeanReward(sim.ledgerMean, sim.items, { iterations: 300, seed: s + 1 });
      const naive = correctedSuccessRate(
        sim.observed,
        sim.items.map((i, k) => ({ ...i, ticket: `${i.ticket}:${k}` })),
        { iterations: 300, seed: s + 1 },
      );
      if (!r.ok || !m.ok || !naive.ok) continue;
      defined++;
      if (r.lo <= sim.truth && sim.truth <= r.hi) rateCovered++;
      if (m.lo <= sim.trueMean && sim.trueMean <= m.hi) meanCovered++;
      if (naive.lo <= sim.truth && sim.truth <= naive.hi) naiveCovered++;
    }
    expect(defined).toBe(SIMULATIONS);
    expect(Math.abs(rateCovered / defined - 0.95)).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(meanCovered / defined - 0.95)).toBeLessThanOrEqual(TOLERANCE);
    expect(naiveCovered / defined).toBeLessThan(0.95 - TOLERANCE);
  }, 60_000); // about 4 s of CPU; the wall clock is longer on a shared machine
});
