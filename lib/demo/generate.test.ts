import { describe, expect, it } from "vitest";
import { buildTicket, CATEGORIES } from "@/lib/demo/catalog.ts";
import { CLEAN, drawFlaws, ratesAt, type Flaws } from "@/lib/demo/curve.ts";
import { demoRunValues, demoTickets } from "@/lib/demo/generate.ts";
import { rng } from "@/lib/demo/rng.ts";
import { buildRollout } from "@/lib/demo/rollout.ts";
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

  it("moves like the reference figures: missing evidence, unauthorized writes and success early vs late", () => {
    const big = { ...spec, tickets: 120, steps: 2, k: 8 };
    const cases = new Map<string, ReturnType<typeof caseSchema.parse>>();
    const at: Record<number, { n: number; me: number; uw: number; ok: number }> = {};
    for (const v of demoRunValues(big)) {
      if (v.kind === "case") {
        const c = caseSchema.parse(v);
        cases.set(c.ticket.id, c);
        continue;
      }
      const r = rolloutSchema.parse(v);
      const rec = scoreRollout(r, cases.get(r.ticket_id)!);
      const s = (at[r.step] ??= { n: 0, me: 0, uw: 0, ok: 0 });
      s.n++;
      if (rec.guardrails.some((g) => g.code === "missing_evidence")) s.me++;
      if (rec.guardrails.some((g) => g.code === "unauthorized_write")) s.uw++;
      if ((rec.reward ?? 0) >= 0.9) s.ok++;
    }
    const [first, last] = Object.values(at).map((s) => ({ me: s.me / s.n, uw: s.uw / s.n, ok: s.ok / s.n }));
    expect(first.me).toBeGreaterThan(0.33);
    expect(first.uw).toBeGreaterThan(0.2);
    expect(first.ok).toBeLessThan(0.16);
    expect(last.me).toBeLessThan(0.1);
    expect(last.uw).toBeLessThan(0.07);
    expect(last.ok).toBeGreaterThan(0.85);
  });
});

describe("training curve", () => {
  it("starts and ends at the reference figures", () => {
    expect(ratesAt(0, "normal")).toMatchObject({ success: 0.08, handoff: 0.08, unauthorized: 0.24 });
    expect(ratesAt(1, "normal").success).toBeCloseTo(0.92, 9);
    expect(ratesAt(1, "hacking").handoff).toBeCloseTo(0.41, 9);
    // It creeps: half-way through training, less than half of the rise has happened.
    expect(ratesAt(0.5, "hacking").handoff - 0.08).toBeLessThan((0.41 - 0.08) / 2);
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
