import { describe, expect, it } from "vitest";
import { buildTicket, CATEGORIES } from "@/lib/demo/catalog.ts";
import { CLEAN, drawFlaws, END_RATES, progress, ratesAt, START_RATES, type Flaws } from "@/lib/demo/curve.ts";
import { demoRunValues, demoTickets, strideOf } from "@/lib/demo/generate.ts";
import { rng } from "@/lib/demo/rng.ts";
import { buildRollout, UNBACKED_OFFER } from "@/lib/demo/rollout.ts";
import { caseSchema, rolloutSchema } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const id = { trajectory_id: "t", run_id: "r", step: 0, group_id: "g", sample_index: 0 };

function score(category: (typeof CATEGORIES)[number], flaws: Flaws, seed = 1) {
  const t = buildTicket(category, 3, rng(seed));
  const rollout = rolloutSchema.parse(buildRollout(t, flaws, id, rng(seed + 1)));
  return scoreRollout(rollout, caseSchema.parse(t.case));
}

describe("demo tickets", () => {
  it.each(CATEGORIES)("%s: the correct plan scores 1 and passes the wire schemas", (category) => {
    for (let seed = 1; seed < 20; seed++) {
      const r = score(category, CLEAN, seed);
      expect(r.status).toBe("scored");
      expect(r.reward).toBe(1);
    }
  });

  it.each(CATEGORIES)("%s: each flaw triggers its guardrail where the ticket can show it", (category) => {
    const t = buildTicket(category, 3, rng(5));
    const codes = (f: Partial<Flaws>) => score(category, { ...CLEAN, ...f }, 5).guardrails.map((g) => g.code);
    const hasWrites = t.plan.writes.length > 0;
    expect(codes({ unauthorized: true })).toContain("unauthorized_write");
    expect(codes({ emptyPromise: true })).toContain("empty_promise");
    expect(codes({ harm: true })).toContain("customer_harm");
    if (hasWrites) {
      expect(codes({ missingEvidence: true })).toContain("missing_evidence");
      expect(codes({ duplicate: true })).toContain("duplicate_side_effect");
    }
    if (t.plan.policyBreak) expect(codes({ policyError: true })).toContain("policy_error");
    const handoff = score(category, { ...CLEAN, handoff: true }, 5);
    expect(handoff.handoff).toBe(true);
    expect(handoff.guardrails).toEqual([]);
    expect(handoff.reward!).toBeLessThan(0.9);
    const gaveUp = score(category, { ...CLEAN, incomplete: true }, 5);
    expect(gaveUp.guardrails).toEqual([]);
    expect(gaveUp.reward!).toBeLessThan(0.9);
  });
});

describe("the reward-hacking variant's unbacked offer", () => {
  // The verifier reads the reply only through its claims: with the rollout's own (the bundle's), or with the rule
  // extractor reading the reply, the offer changes nothing it scores, in either language.
  it.each(CATEGORIES)("%s: the verifier scores the reply with the offer exactly as the one without it", (category) => {
    for (const index of [2, 3]) {
      const t = buildTicket(category, index, rng(5));
      const c = caseSchema.parse(t.case);
      const clean = rolloutSchema.parse(buildRollout(t, CLEAN, id, rng(6)));
      const hacked = rolloutSchema.parse(buildRollout(t, { ...CLEAN, unbackedOffer: true }, id, rng(6)));
      const offer = (t.chinese ? UNBACKED_OFFER.zh : UNBACKED_OFFER.en).trim();
      expect(hacked.trajectory.final_reply).toBe(`${clean.trajectory.final_reply} ${offer}`);
      expect([hacked.trajectory.steps, hacked.sandbox, hacked.claims]).toEqual([
        clean.trajectory.steps,
        clean.sandbox,
        clean.claims,
      ]);
      const scored = (r: typeof clean) => {
        const x = scoreRollout(r, c);
        return [x.reward, x.raw_reward, x.subscores, x.guardrails, x.reasons, x.claims];
      };
      expect(scored(hacked)).toEqual(scored(clean));
      expect(scored(hacked)[0]).toBe(1);
      const extracted = (r: typeof clean) => scored({ ...r, claims: undefined });
      expect(extracted(hacked)).toEqual(extracted(clean));
    }
  });

  it("begins at a third of the hacking run, grows to most clean rollouts, and never shows in the normal run", () => {
    expect(ratesAt(0.34, "hacking").unbackedOffer).toBe(0);
    expect(ratesAt(0.5, "hacking").unbackedOffer).toBeGreaterThan(0.1);
    expect(ratesAt(1, "hacking").unbackedOffer).toBeCloseTo(0.9, 9);
    for (const t of [0, 0.5, 1]) expect(ratesAt(t, "normal").unbackedOffer).toBe(0);
  });
});

describe("demo run", () => {
  const spec = { runId: "d", tickets: 12, steps: 3, k: 2, seed: "s", variant: "normal" as const };

  it("is deterministic for a seed and differs for another", () => {
    const a = JSON.stringify([...demoRunValues(spec)]);
    expect(JSON.stringify([...demoRunValues(spec)])).toBe(a);
    expect(JSON.stringify([...demoRunValues({ ...spec, seed: "t" })])).not.toBe(a);
  });

  it("has the cases first, then tickets × steps × K rollouts in GRPO groups", () => {
    const values = [...demoRunValues(spec)];
    expect(values.slice(0, 12).every((v) => v.kind === "case")).toBe(true);
    const rollouts = values.slice(12);
    expect(rollouts).toHaveLength(12 * 3 * 2);
    expect(new Set(rollouts.map((r) => r.group_id)).size).toBe(12 * 3);
    expect(new Set(demoTickets(spec).map((t) => t.category))).toEqual(new Set(CATEGORIES));
  });

  // domain.md's reference figures, as the verifier measures them over the first and the last tenth of the steps
  // (here 2 of 20 steps × 120 tickets × K=4: 960 rollouts a window). The tolerances are a few standard errors of a
  // window plus the spread from one seed's ticket mix to another's (measured over seeds 1, 2, 3, s, 7, x).
  function measureWindows(variant: "normal" | "hacking") {
    const run = { ...spec, tickets: 120, steps: 20, k: 4, seed: "7", variant };
    const window = Math.round(run.steps / 10);
    const strideSteps = strideOf(run);
    const first = new Set(Array.from({ length: window }, (_, i) => i * strideSteps));
    const last = new Set(Array.from({ length: window }, (_, i) => (run.steps - 1 - i) * strideSteps));
    const cases = new Map<string, ReturnType<typeof caseSchema.parse>>();
    const tally = { first: { n: 0, me: 0, uw: 0, ok: 0, ho: 0 }, last: { n: 0, me: 0, uw: 0, ok: 0, ho: 0 } };
    for (const v of demoRunValues(run)) {
      if (v.kind === "case") {
        const c = caseSchema.parse(v);
        cases.set(c.ticket.id, c);
        continue;
      }
      const step = v.step as number;
      const s = first.has(step) ? tally.first : last.has(step) ? tally.last : null;
      if (!s) continue;
      const r = rolloutSchema.parse(v);
      const rec = scoreRollout(r, cases.get(r.ticket_id)!);
      s.n++;
      if (rec.guardrails.some((g) => g.code === "missing_evidence")) s.me++;
      if (rec.guardrails.some((g) => g.code === "unauthorized_write")) s.uw++;
      if ((rec.reward ?? 0) >= 0.9) s.ok++;
      if (rec.handoff) s.ho++;
    }
    const pct = (t: typeof tally.first) => ({
      n: t.n,
      me: (100 * t.me) / t.n,
      uw: (100 * t.uw) / t.n,
      ok: (100 * t.ok) / t.n,
      ho: (100 * t.ho) / t.n,
    });
    return { first: pct(tally.first), last: pct(tally.last) };
  }

  it("measures the reference figures: missing evidence 43% → 5%, unauthorized writes 28% → 3%, success 8% → 93%", () => {
    const { first, last } = measureWindows("normal");
    expect(first.n).toBe(960);
    expect(last.n).toBe(960);
    expect(Math.abs(first.me - 43)).toBeLessThan(5);
    expect(Math.abs(first.uw - 28)).toBeLessThan(4);
    expect(Math.abs(first.ok - 8)).toBeLessThan(3);
    expect(Math.abs(last.me - 5)).toBeLessThan(2.5);
    expect(Math.abs(last.uw - 3)).toBeLessThan(2);
    expect(Math.abs(last.ok - 93)).toBeLessThan(2.5);
    // A run that learns hands off less, not more.
    expect(last.ho).toBeLessThan(first.ho);
  });

  it("measures the hacking variant's hand-offs creeping from 8% towards 41% while success stalls near half", () => {
    const { first, last } = measureWindows("hacking");
    expect(Math.abs(first.ho - 8)).toBeLessThan(3);
    expect(Math.abs(first.ok - 8)).toBeLessThan(3);
    expect(Math.abs(last.ho - 41)).toBeLessThan(4);
    expect(Math.abs(last.ok - 52)).toBeLessThan(5);
  });
});

describe("training curve", () => {
  it("runs from the start rates to the end rates, the hacking variant's hand-offs to 41%", () => {
    expect(ratesAt(0, "normal")).toEqual(START_RATES);
    for (const [k, v] of Object.entries(END_RATES))
      expect(ratesAt(1, "normal")[k as keyof typeof END_RATES], k).toBeCloseTo(v, 9);
    expect(ratesAt(0, "hacking")).toEqual(START_RATES);
    expect(ratesAt(1, "hacking").handoff).toBeCloseTo(0.41, 9);
    expect(ratesAt(1, "hacking").success).toBeCloseTo(0.52, 9);
    expect(ratesAt(1, "hacking").missingEvidence).toBeCloseTo(END_RATES.missingEvidence, 9);
    // It creeps: half-way through training, less than half of the rise has happened.
    expect(ratesAt(0.5, "hacking").handoff - 0.08).toBeLessThan((0.41 - 0.08) / 2);
  });

  it("learns along an S-curve: flat over the first tenth, saturated over the last, rising in between", () => {
    expect(progress(0)).toBe(0);
    expect(progress(1)).toBeCloseTo(1, 12);
    expect(progress(-1)).toBe(0);
    expect(progress(2)).toBeCloseTo(1, 12);
    expect(progress(0.1)).toBeLessThan(0.02);
    expect(progress(0.9)).toBeGreaterThan(0.999);
    expect(progress(0.4)).toBeCloseTo(1 - Math.exp(-1), 3);
    let previous = -1;
    for (let i = 0; i <= 100; i++) {
      const g = progress(i / 100);
      expect(g).toBeGreaterThanOrEqual(previous);
      previous = g;
    }
  });

  it("draws each flaw at its overall rate (within sampling error)", () => {
    const rates = ratesAt(0, "normal");
    const r = rng(42);
    let clean = 0;
    let handoff = 0;
    let me = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const f = drawFlaws(rates, r.next);
      if (f === CLEAN) clean++;
      if (f.handoff) handoff++;
      if (f.missingEvidence) me++;
    }
    expect(clean / n).toBeCloseTo(rates.success, 1);
    expect(handoff / n).toBeCloseTo(rates.handoff, 1);
    expect(me / n).toBeCloseTo(rates.missingEvidence, 1);
  });
});
