// The fast path may only say "zod would accept this unchanged" when that is true. Checked on every kind of rollout
// and scored record the demo generator and the spec examples produce, and on 4,000 random mutations of them:
// whenever the fast path accepts, zod accepts too and the stored rows (with their content hashes) are identical.
import { describe, expect, it } from "vitest";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { loadExamples } from "@/lib/demo/seed.ts";
import { fastExternalRecord, fastRollout, fastScoredRecord } from "@/lib/ingest/fast-validate.ts";
import { ledgerEntryRows } from "@/lib/ledger/store/ledger-rows.ts";
import { rolloutRow, withIdentityDefaults } from "@/lib/ledger/store/rows.ts";
import {
  caseSchema,
  rolloutSchema,
  scoreRecordSchema,
  type Case,
  type Rollout,
  type ScoreRecord,
} from "@/lib/verifier/schema.ts";
import { MAX_ID_LENGTH } from "@/lib/verifier/limits.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

function corpus(): {
  rollouts: Record<string, unknown>[];
  records: Record<string, unknown>[];
  examples: Record<string, unknown>[];
} {
  const cases = new Map<string, Case>();
  const rollouts: Record<string, unknown>[] = [];
  const records: Record<string, unknown>[] = [];
  for (const v of demoRunValues({
    runId: "fv",
    tickets: 24,
    steps: 6,
    k: 2,
    seed: "fast-validate",
    variant: "hacking",
  })) {
    if (v.kind === "case") {
      const c = caseSchema.parse(v);
      cases.set(c.ticket.id, c);
      continue;
    }
    const r = rolloutSchema.parse(v);
    rollouts.push(JSON.parse(JSON.stringify(v)));
    records.push(JSON.parse(JSON.stringify(scoreRollout(r, cases.get(r.ticket_id)!))));
  }
  // Each example embeds its case, which always goes to zod; without it, the rest of the rollout can take the fast path.
  const examples = (loadExamples() as Record<string, unknown>[])
    .filter((e) => e.kind === "rollout")
    .flatMap((e) => [e, Object.fromEntries(Object.entries(e).filter(([k]) => k !== "case"))]);
  return { rollouts, records, examples };
}

const rolloutRowOf = (r: Rollout) => rolloutRow(withIdentityDefaults(r));
const ledgerRowsOf = (r: ScoreRecord) => ledgerEntryRows(r);

/** Every object and array in a value, with a way to replace it or one of its entries. */
type Site = { holder: Record<string, unknown> | unknown[]; key: string | number };
function sites(v: unknown, out: Site[] = []): Site[] {
  if (Array.isArray(v)) v.forEach((x, i) => (out.push({ holder: v, key: i }), sites(x, out)));
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      out.push({ holder: v as Record<string, unknown>, key: k });
      sites(x, out);
    }
  }
  return out;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

const REPLACEMENTS: unknown[] = [
  null,
  "",
  "x",
  -1,
  0,
  1,
  1.5,
  2 ** 60,
  true,
  {},
  [],
  [1],
  { a: 1 },
  "2026-01-01T00:00:00Z",
  "2026-01-01",
  "sha256:" + "0".repeat(64),
  "success",
  "llm",
  "tool",
  "write",
  "customer_harm",
  "evidence",
  // The id limits (lib/verifier/limits.ts): the longest id, one character more, characters an id may not have.
  "i".repeat(MAX_ID_LENGTH),
  "i".repeat(MAX_ID_LENGTH + 1),
  "a<b",
  "tab\there",
];

/** One random change: replace a value, delete a key, add an unknown key, reverse an object's key order. */
function mutate(base: unknown, rand: () => number): unknown {
  const v = structuredClone(base);
  const all = sites(v);
  const site = all[Math.floor(rand() * all.length)];
  const op = Math.floor(rand() * 5);
  const h = site.holder as Record<string | number, unknown>;
  if (op === 0 || op === 1) h[site.key] = REPLACEMENTS[Math.floor(rand() * REPLACEMENTS.length)];
  else if (op === 2 && !Array.isArray(h)) delete h[site.key];
  else if (op === 3) {
    const target = h[site.key];
    if (target && typeof target === "object" && !Array.isArray(target))
      (target as Record<string, unknown>)[rand() < 0.5 ? "zz_extra" : "__proto__"] = 1;
    else h[site.key] = undefined;
  } else {
    const target = h[site.key];
    if (target && typeof target === "object" && !Array.isArray(target)) {
      const entries = Object.entries(target).reverse();
      h[site.key] = Object.fromEntries(entries);
    } else if (Array.isArray(h)) h.splice(Number(site.key), 1);
  }
  // Through JSON, as a line arrives: a `__proto__` key becomes an own property, undefined values disappear.
  return JSON.parse(JSON.stringify(v ?? null));
}

describe("fast-path validation of rollouts and scored records", () => {
  const { rollouts, records, examples } = corpus();

  it(
    "takes every rollout and scored record the generator produces, storing what zod would",
    { timeout: 60_000 },
    () => {
      expect(rollouts.length).toBeGreaterThan(200);
      for (const r of rollouts) {
        const fast = fastRollout(r);
        expect(fast, JSON.stringify(r).slice(0, 200)).toBe(r);
        expect(rolloutRowOf(fast!)).toEqual(rolloutRowOf(rolloutSchema.parse(r)));
      }
      const scored = records.filter((r) => r.status === "scored");
      expect(scored.length).toBeGreaterThan(200);
      for (const r of scored) {
        const fast = fastScoredRecord(r);
        expect(fast).toBe(r);
        expect(ledgerRowsOf(fast!)).toEqual(ledgerRowsOf(scoreRecordSchema.parse(r)));
      }
    },
  );

  it("stores the spec's example rollouts as zod would, whichever path takes them", () => {
    expect(examples.length).toBeGreaterThan(5);
    let fastTook = 0;
    for (const r of [...examples, ...examples.map((e) => mutate(e, rng(7)))]) {
      const fast = fastRollout(r);
      const z = rolloutSchema.safeParse(r);
      if (!fast) continue;
      fastTook++;
      expect(z.success).toBe(true);
      expect(rolloutRowOf(fast)).toEqual(rolloutRowOf(z.data!));
    }
    expect(fastTook).toBeGreaterThan(0);
  });

  it("leaves to zod what needs a transform, a default or a reordering of keys", () => {
    const r = structuredClone(rollouts[0]) as {
      trajectory: { steps: Record<string, unknown>[] };
      sandbox: Record<string, unknown>;
    };
    const tool = r.trajectory.steps.find((s) => s.type === "tool")!;
    tool.input = JSON.stringify(tool.input);
    expect(fastRollout(r)).toBeNull();
    expect(rolloutSchema.safeParse(r).success).toBe(true);
    const noTables = structuredClone(rollouts[0]) as { sandbox: Record<string, unknown> };
    delete noTables.sandbox.tables;
    expect(fastRollout(noTables)).toBeNull();
    expect(rolloutSchema.safeParse(noTables).success).toBe(true);
    const noSource = { ...records[0] };
    delete noSource.source;
    expect(fastScoredRecord(noSource)).toBeNull();
    expect(scoreRecordSchema.safeParse(noSource).success).toBe(true);
  });

  it("leaves to zod an id past the limits, wherever it is", () => {
    const r = structuredClone(rollouts[0]) as Record<string, unknown> & { trajectory: { steps: { name: string }[] } };
    for (const bad of ["i".repeat(MAX_ID_LENGTH + 1), "a'b", "bell\u0007"]) {
      expect(fastRollout({ ...r, trajectory_id: bad })).toBeNull();
      expect(fastRollout({ ...r, group_id: bad })).toBeNull();
      const steps = r.trajectory.steps.map((s) => ({ ...s, name: bad }));
      expect(fastRollout({ ...r, trajectory: { ...r.trajectory, steps } })).toBeNull();
      const rec = records.find((x) => x.status === "scored")!;
      expect(fastScoredRecord({ ...rec, run_id: bad })).toBeNull();
      expect(scoreRecordSchema.safeParse({ ...rec, run_id: bad }).success).toBe(false);
    }
    const rec = records.find((x) => x.status === "scored")!;
    const reasons = [{ code: "x", message: "m", tool: "t".repeat(MAX_ID_LENGTH + 1) }];
    expect(fastScoredRecord({ ...rec, reasons })).toBeNull();
    expect(fastRollout({ ...r, trajectory_id: "i".repeat(MAX_ID_LENGTH) })).not.toBeNull();
  });

  it(
    "never accepts a mutation zod rejects, nor stores one differently (4,000 random mutations)",
    { timeout: 60_000 },
    () => {
      const rand = rng(20261130);
      let fastTook = 0;
      let zodOnly = 0;
      let rejected = 0;
      const scored = records.filter((r) => r.status === "scored");
      const bases = [...rollouts, ...examples];
      for (let i = 0; i < 4000; i++) {
        const isRollout = i % 2 === 0;
        const base = isRollout ? bases[((i / 2) % bases.length) | 0] : scored[i % scored.length];
        const m = mutate(base, rand);
        const fast = isRollout ? fastRollout(m) : fastScoredRecord(m);
        const z = isRollout ? rolloutSchema.safeParse(m) : scoreRecordSchema.safeParse(m);
        if (fast) {
          expect(z.success, JSON.stringify(m).slice(0, 300)).toBe(true);
          if (isRollout) expect(rolloutRowOf(fast as Rollout)).toEqual(rolloutRowOf(z.data as Rollout));
          else expect(ledgerRowsOf(fast as ScoreRecord)).toEqual(ledgerRowsOf(z.data as ScoreRecord));
          fastTook++;
        } else if (z.success) zodOnly++;
        else rejected++;
      }
      // The mutations exercise all three outcomes, so the assertions above are not vacuous.
      expect(fastTook).toBeGreaterThan(200);
      expect(zodOnly).toBeGreaterThan(50);
      expect(rejected).toBeGreaterThan(700);
    },
  );
});

describe("fast-path validation of external score records", () => {
  const { records } = corpus();
  // External records in every shape the format allows: with and without kind, group, raw reward, sub-scores (all or
  // some), guardrails (codes, objects with a cap or evidence or an extra key), reasons and a trained reward.
  const externals = records
    .filter((r) => r.status === "scored")
    .map((r, i) => {
      const x: Record<string, unknown> = {
        kind: "score",
        source: "external",
        trajectory_id: r.trajectory_id,
        run_id: r.run_id,
        step: r.step,
        ticket_id: r.ticket_id,
        reward: r.reward,
      };
      if (i % 2) x.group_id = r.group_id;
      if (i % 3 === 0) delete x.kind;
      if (i % 4 === 1) x.raw_reward = r.raw_reward;
      if (i % 5 === 2) x.sample_index = null;
      const sub = r.subscores as Record<string, number>;
      if (i % 3 === 1) x.subscores = sub;
      if (i % 3 === 2) x.subscores = { outcome: sub.outcome, evidence: sub.evidence };
      const hits = r.guardrails as { code: string; cap: number; evidence: unknown }[];
      if (hits.length)
        x.guardrails = hits.map((g, k) =>
          k % 3 === 0
            ? g.code
            : k % 3 === 1
              ? { code: g.code, cap: g.cap }
              : { code: g.code, evidence: g.evidence, note: "n" },
        );
      if (i % 2 === 0 && (r.reasons as unknown[]).length) x.reasons = r.reasons;
      if (i % 7 === 3) x.trained_reward = 0.25;
      return x;
    });

  it("takes every well-formed external record, storing what zod would", () => {
    expect(externals.length).toBeGreaterThan(200);
    expect(externals.some((x) => Array.isArray(x.guardrails))).toBe(true);
    for (const x of externals) {
      const fast = fastExternalRecord(x);
      expect(fast, JSON.stringify(x).slice(0, 300)).toBe(x);
      expect(ledgerRowsOf(fast!)).toEqual(ledgerRowsOf(scoreRecordSchema.parse(x)));
    }
    // a verifier record is not an external one, nor the other way round
    expect(fastExternalRecord(records.find((r) => r.status === "scored"))).toBeNull();
    expect(fastScoredRecord(externals[0])).toBeNull();
  });

  it(
    "never accepts a mutation zod rejects, nor stores one differently (3,000 random mutations)",
    { timeout: 60_000 },
    () => {
      const rand = rng(20261201);
      let fastTook = 0;
      let zodOnly = 0;
      let rejected = 0;
      for (let i = 0; i < 3000; i++) {
        const m = mutate(externals[i % externals.length], rand);
        const fast = fastExternalRecord(m);
        const z = scoreRecordSchema.safeParse(m);
        if (fast) {
          expect(z.success, JSON.stringify(m).slice(0, 300)).toBe(true);
          expect(ledgerRowsOf(fast)).toEqual(ledgerRowsOf(z.data as ScoreRecord));
          fastTook++;
        } else if (z.success) zodOnly++;
        else rejected++;
      }
      expect(fastTook).toBeGreaterThan(200);
      expect(rejected).toBeGreaterThan(500);
      void zodOnly;
    },
  );
});
