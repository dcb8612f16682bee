import { describe, expect, it } from "vitest";
import {
  correctedMeanReward,
  correctedSuccessRate,
  roganGladen,
  thinReason,
  weightedSensitivitySpecificity,
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

describe("roganGladen", () => {
  it("corrects the observed share by hand-computed values", () => {
    // (0.6 + 0.8 − 1) / (0.9 + 0.8 − 1) = 0.4 / 0.7
    const r = roganGladen(0.6, 0.9, 0.8);
    expect(r.ok && r.rate).toBeCloseTo(4 / 7, 12);
    expect(r.ok && r.clamped).toBe(false);
    // a perfect test changes nothing
    const perfect = roganGladen(0.3, 1, 1);
    expect(perfect.ok && [perfect.clamped, perfect.rate]).toEqual([false, expect.closeTo(0.3, 12)]);
    // (0.75 + 0.7 − 1) / (0.6 + 0.7 − 1) = 0.45 / 0.3 = 1.5 → clamped to 1
    const over = roganGladen(0.75, 0.6, 0.7);
    expect(over.ok && over.unclamped).toBeCloseTo(1.5, 12);
    expect(over.ok && [over.rate, over.clamped]).toEqual([1, true]);
    // (0.05 + 0.8 − 1) / 0.7 < 0 → clamped to 0
    const under = roganGladen(0.05, 0.9, 0.8);
    expect(under.ok && [under.rate, under.clamped]).toEqual([0, true]);
    expect(under.ok && under.unclamped).toBeCloseTo(-0.15 / 0.7, 12);
  });

  it("is undefined, with the reason, when the ledger's verdict is no better than chance", () => {
    expect(roganGladen(0.5, 0.5, 0.5)).toEqual({
      ok: false,
      reason: "the ledger's verdict is no better than chance against the human one (Se + Sp − 1 = 0 ≤ 0)",
    });
    const worse = roganGladen(0.5, 0.3, 0.4);
    expect(worse.ok).toBe(false);
    expect(!worse.ok && worse.reason).toMatch(/Se \+ Sp − 1 = -0\.3 ≤ 0/);
  });

  it("refuses shares outside [0, 1]", () => {
    expect(() => roganGladen(1.2, 0.9, 0.9)).toThrow(/observed share must be in \[0, 1\], got 1.2/);
    expect(() => roganGladen(0.5, Number.NaN, 0.9)).toThrow(/sensitivity/);
    expect(() => roganGladen(0.5, 0.9, -0.1)).toThrow(/specificity/);
  });
});

describe("weightedSensitivitySpecificity", () => {
  it("weights each rollout by 1/π", () => {
    const items = [
      v("a", true, true, 0.5), // weight 2: a true positive
      v("a", false, true, 1), // weight 1: a missed success
      v("b", false, false, 0.25), // weight 4: a true negative
      v("b", true, false, 1), // weight 1: a false success
    ];
    const r = weightedSensitivitySpecificity(items);
    expect(r.se).toBeCloseTo(2 / 3, 12);
    expect(r.sp).toBeCloseTo(4 / 5, 12);
    expect([r.humanSuccesses, r.humanFailures]).toEqual([2, 2]);
    // unweighted, both would be 1/2
    const equal = weightedSensitivitySpecificity(items.map((i) => ({ ...i, inclusionProbability: 0.1 })));
    expect([equal.se, equal.sp]).toEqual([0.5, 0.5]);
  });

  it("has no Se without human successes and no Sp without human failures", () => {
    expect(weightedSensitivitySpecificity([v("a", true, false)])).toMatchObject({ se: null, sp: 0 });
    expect(weightedSensitivitySpecificity([v("a", true, true)])).toMatchObject({ se: 1, sp: null });
  });

  it("refuses an inclusion probability outside (0, 1]", () => {
    expect(() => weightedSensitivitySpecificity([v("a", true, true, 0)])).toThrow(/\(0, 1\], got 0/);
    expect(() => weightedSensitivitySpecificity([v("a", true, true, 1.5)])).toThrow(/got 1.5/);
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
    expect(thinReason(audit(5, 2, 5))).toBe("10 audited rollouts, fewer than 20");
    expect(thinReason(audit(9, 4, 10))).toBe("9 audited tickets, fewer than 10");
    expect(thinReason(audit(20, 1, 2))).toBe("2 human successes, fewer than 3: no sensitivity");
    expect(thinReason(audit(20, 1, 18))).toBe("2 human failures, fewer than 3: no specificity");
    expect(thinReason(audit(20, 1, 10))).toBeNull();
    const thin = correctedSuccessRate(0.5, audit(20, 1, 2));
    expect(thin).toEqual({ ok: false, reason: "2 human successes, fewer than 3: no sensitivity" });
    expect(correctedMeanReward(0.5, audit(9, 4, 10))).toEqual({
      ok: false,
      reason: "9 audited tickets, fewer than 10",
    });
  });
});

describe("correctedSuccessRate", () => {
  it("is the Rogan–Gladen rate of the weighted Se and Sp, reproducibly", () => {
    // 30 tickets: 12 human successes of which the ledger passes 9 (Se 0.75), 18 failures of which it fails 12 (Sp 2/3)
    const items: AuditedVerdict[] = [];
    for (let t = 0; t < 30; t++) items.push(v(`t${t}`, t < 9 || t >= 24, t < 12));
    const r = correctedSuccessRate(0.5, items, { iterations: 400, seed: 3 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.se).toBeCloseTo(0.75, 12);
    expect(r.sp).toBeCloseTo(2 / 3, 12);
    // (0.5 + 2/3 − 1) / (0.75 + 2/3 − 1) = (1/6) / (5/12) = 0.4
    expect(r.rate).toBeCloseTo(0.4, 12);
    expect(r.lo).toBeLessThan(0.4);
    expect(r.hi).toBeGreaterThan(0.4);
    expect([r.items, r.tickets, r.iterations]).toEqual([30, 30, 400]);
    expect(correctedSuccessRate(0.5, items, { iterations: 400, seed: 3 })).toEqual(r);
    expect(correctedSuccessRate(0.5, items, { iterations: 400, seed: 4 })).not.toEqual(r);
  });

  it("says why when the ledger's verdict is no better than chance", () => {
    // Se = 0.5, Sp = 0.5
    const items: AuditedVerdict[] = [];
    for (let t = 0; t < 24; t++) items.push(v(`t${t}`, t % 2 === 0, t % 4 < 2));
    const r = correctedSuccessRate(0.5, items);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/no better than chance/);
  });
});

// ---- Coverage over simulated audits --------------------------------------------------------------------------------

/**
 * A simulated window: 1,000 tickets of 4 rollouts. Tickets are easy (human success 0.95) or hard (0.1), so a ticket's
 * rollouts are correlated; refund tickets (half) are harder and fool the ledger more often (false success 0.45 vs
 * 0.1) and are audited at π = 0.12 against 0.04 elsewhere, so unweighted Se/Sp would be biased. The audit takes whole
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
