import { describe, expect, it } from "vitest";
import { makeCase, makeRollout, tool } from "@/lib/testing/verifier-fixtures.ts";
import {
  caseSchema,
  claimsSchema,
  externalScoreSchema,
  reviewSchema,
  rolloutSchema,
  scoreRecordSchema,
  zodIssues,
} from "@/lib/verifier/schema.ts";
import {
  ID_BAD_CHARACTER,
  INT4_MAX,
  MAX_CLAIMS,
  MAX_ID_LENGTH,
  MAX_REASONS,
  MAX_STEPS,
} from "@/lib/verifier/limits.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

const issues = (schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, v: unknown) => {
  const r = schema.safeParse(v);
  return r.success ? [] : zodIssues(r.error as never);
};

describe("rollout schema", () => {
  it("accepts the fixture rollout, with and without an embedded case", () => {
    expect(issues(rolloutSchema, makeRollout())).toEqual([]);
    expect(issues(rolloutSchema, { ...makeRollout(), case: makeCase() })).toEqual([]);
    expect(issues(rolloutSchema, { ...makeRollout(), claims: null })).toEqual([]);
    const noClaims: Record<string, unknown> = makeRollout();
    delete noClaims.claims;
    expect(issues(rolloutSchema, noClaims)).toEqual([]);
  });

  it("parses tool inputs given as JSON strings and keeps other strings as text", () => {
    const r = makeRollout({
      steps: [
        tool("order.get", '{"order_id": "O-1"}'),
        tool("policy.search", "damaged item"),
        tool("ticket.close", "[1, 2]"),
      ],
      writes: [],
    });
    const parsed = rolloutSchema.parse(r);
    expect(parsed.trajectory.steps.map((s) => (s.type === "tool" ? s.input : null))).toEqual([
      { order_id: "O-1" },
      "damaged item",
      [1, 2],
    ]);
  });

  it("defaults a missing tool input to {}", () => {
    const r = makeRollout();
    delete (r.trajectory.steps[0] as { input?: unknown }).input;
    expect(rolloutSchema.parse(r).trajectory.steps[0]).toMatchObject({ input: {} });
  });

  it("reports problems with JSON-path-like paths", () => {
    const r = makeRollout() as unknown as Record<string, unknown> & {
      trajectory: { steps: Record<string, unknown>[] };
    };
    r.trajectory.steps[3].status = "ok";
    r.trajectry = {};
    expect(issues(rolloutSchema, r)).toEqual([
      { path: "trajectory.steps.3.status", message: expect.stringContaining('"success"|"failed"') },
      { path: "trajectry", message: 'unknown field "trajectry"' },
    ]);
  });

  it("checks cross-field consistency", () => {
    const r = { ...makeRollout(), case: makeCase({}, undefined, "T-2") };
    expect(issues(rolloutSchema, r)).toEqual([
      { path: "case.ticket.id", message: "embedded case is for ticket T-2, the rollout for T-1001" },
    ]);
    const w = makeRollout();
    w.sandbox.writes[0].step = 9;
    expect(issues(rolloutSchema, w)).toEqual([
      { path: "sandbox.writes.0.step", message: "step 9 is outside the trajectory (4 steps)" },
    ]);
    const d = makeRollout();
    d.tool_registry.push({ name: "order.get", kind: "write" });
    expect(issues(rolloutSchema, d).map((i) => i.path)).toEqual(["tool_registry.13.name"]);
  });

  it("requires instants with a time zone for write times", () => {
    const r = makeRollout();
    r.sandbox.writes[0].at = "2026-11-02 09:00";
    expect(issues(rolloutSchema, r).map((i) => i.path)).toEqual(["sandbox.writes.0.at"]);
  });
});

describe("case schema", () => {
  it("accepts the optional sections", () => {
    const c = makeCase({
      risk: { tools: ["finance.issue_refund"], arg: "amount", threshold: 100, check: "risk.check" },
      approval: { tools: ["finance.issue_refund"] },
      privacy: { customer: "$order.customer_id", customer_args: ["customer_id"] },
      deadline: "2026-11-03T00:00:00Z",
    });
    expect(issues(caseSchema, c)).toEqual([]);
  });

  it("rejects typos anywhere in the spec and half-written harm rules", () => {
    const c = makeCase();
    (c.verifier_spec as Record<string, unknown>).required_write = [];
    (c.verifier_spec.required_writes![0] as Record<string, unknown>).afer = ["x"];
    c.verifier_spec.harm = [{ tool: "finance.issue_refund", arg: "amount" }];
    expect(
      issues(caseSchema, c)
        .map((i) => i.path)
        .sort(),
    ).toEqual(["verifier_spec.harm.0", "verifier_spec.required_write", "verifier_spec.required_writes.0.afer"]);
  });
});

describe("claims, score and review schemas", () => {
  it("defaults empty claim lists and rejects unknown fields", () => {
    expect(claimsSchema.parse({})).toEqual({ claimed_writes: [], mentioned: [], forbidden_hits: [] });
    expect(issues(claimsSchema, { claimed: [] })).toEqual([{ path: "claimed", message: 'unknown field "claimed"' }]);
  });

  it("accepts what the verifier writes, including the example without `source`", () => {
    const record = scoreRollout(makeRollout(), makeCase());
    expect(issues(scoreRecordSchema, record)).toEqual([]);
    const formatsExample: Record<string, unknown> = { ...record };
    for (const k of ["source", "group_id", "sample_index"]) delete formatsExample[k];
    expect(scoreRecordSchema.parse(formatsExample).source).toBe("verifier");
  });

  it("accepts a minimal external record and rejects an incomplete one", () => {
    const minimal = { source: "external", trajectory_id: "a", run_id: "r", step: 1, ticket_id: "T", reward: 0.7 };
    expect(issues(externalScoreSchema, minimal)).toEqual([]);
    expect(issues(scoreRecordSchema, { ...minimal, guardrails: ["empty_promise"], subscores: { outcome: 1 } })).toEqual(
      [],
    );
    expect(issues(scoreRecordSchema, { ...minimal, reward: undefined }).map((i) => i.path)).toEqual(["reward"]);
    expect(issues(scoreRecordSchema, { ...minimal, guardrails: ["made_up"] }).map((i) => i.path)).toEqual([
      "guardrails.0",
    ]);
  });

  it("validates a review", () => {
    const review = {
      trajectory_id: "t/1",
      reviewer: "ann@example.com",
      subscores: { outcome: 0, policy: 0.5, evidence: 0, efficiency: 1, communication: 0 },
      guardrails: ["empty_promise"],
      reward: 0.2,
      claims: { claimed_writes: ["finance.issue_refund"], mentioned: [], forbidden_hits: [] },
      note: "claims a refund that never happened",
      seconds_spent: 74,
    };
    expect(issues(reviewSchema, review)).toEqual([]);
    expect(issues(reviewSchema, { ...review, reviewer: "ann" }).map((i) => i.path)).toEqual(["reviewer"]);
    expect(issues(reviewSchema, { ...review, reward: 2 }).map((i) => i.path)).toEqual(["reward"]);
  });
});

describe("id limits (lib/verifier/limits.ts)", () => {
  const long = "x".repeat(MAX_ID_LENGTH + 1);
  const tooLong = `too long: at most ${MAX_ID_LENGTH} characters (got ${MAX_ID_LENGTH + 1})`;

  it("refuses an id past the length limit, naming its path, and takes one at the limit", () => {
    expect(issues(rolloutSchema, { ...makeRollout(), trajectory_id: long })).toEqual([
      { path: "trajectory_id", message: tooLong },
    ]);
    expect(issues(rolloutSchema, { ...makeRollout(), trajectory_id: "x".repeat(MAX_ID_LENGTH) })).toEqual([]);
    expect(issues(rolloutSchema, { ...makeRollout(), group_id: long })).toEqual([
      { path: "group_id", message: tooLong },
    ]);
    const c = makeCase();
    expect(issues(caseSchema, { ...c, ticket: { ...c.ticket, category: long } })).toEqual([
      { path: "ticket.category", message: tooLong },
    ]);
    expect(issues(caseSchema, { ...c, ticket: { ...c.ticket, customer_id: long } })).toEqual([
      { path: "ticket.customer_id", message: tooLong },
    ]);
    const steps = [tool(long, {})];
    expect(issues(rolloutSchema, makeRollout({ steps, writes: [] }))[0]).toEqual({
      path: "trajectory.steps.0.name",
      message: tooLong,
    });
  });

  it("refuses control characters and <, >, \", ', backtick and backslash in ids", () => {
    for (const bad of [
      "a\u0000b",
      "tab\there",
      "new\nline",
      "\u007f",
      "\u0085",
      "<b>",
      'say "hi"',
      "it's",
      "a`b",
      "a\\b",
    ]) {
      const [issue] = issues(rolloutSchema, { ...makeRollout(), run_id: bad });
      expect(issue.path, JSON.stringify(bad)).toBe("run_id");
      expect(issue.message, JSON.stringify(bad)).toMatch(/^contains .* at character \d+: an id has no control/);
    }
    for (const fine of ["grpo-7/s1200/g31/k2", "T-1001", "finance.issue_refund", "é-ü-中文", "a b+c@d:e#f", "🙂-run"])
      expect(issues(rolloutSchema, { ...makeRollout(), run_id: fine })).toEqual([]);
  });

  it("refuses look-alike ids: format characters, lone surrogates and spaces other than U+0020, naming each", () => {
    const tail = `: ${ID_BAD_CHARACTER}`;
    for (const [bad, named] of [
      ["grpo\u202e7", "U+202E (a format character) at character 5"],
      ["grpo\u200d-7", "U+200D (a format character) at character 5"],
      ["\ufeffgrpo-7", "U+FEFF (a format character) at character 1"],
      ["grpo\u00a07", "U+00A0 (a space other than U+0020) at character 5"],
      ["中文\u3000run", "U+3000 (a space other than U+0020) at character 3"],
      ["a\u2028b", "U+2028 (a line or paragraph separator) at character 2"],
      ["🙂\ud800", "U+D800 (a lone surrogate) at character 2"],
      ["a\u0000b", "U+0000 (a control character) at character 2"],
      ["a<b", '"<" at character 2'],
    ]) {
      for (const field of ["run_id", "trajectory_id"] as const)
        expect(issues(rolloutSchema, { ...makeRollout(), [field]: bad })).toEqual([
          { path: field, message: `contains ${named}${tail}` },
        ]);
    }
  });

  it("limits the reason texts a score record brings into the ledger's indexes", () => {
    const record = scoreRollout(rolloutSchema.parse(makeRollout()), caseSchema.parse(makeCase()));
    const reasons = [{ code: "x", message: "a message may be long: ".repeat(50), tool: long }];
    expect(issues(scoreRecordSchema, { ...record, reasons })).toEqual([{ path: "reasons.0.tool", message: tooLong }]);
    expect(issues(scoreRecordSchema, { ...record, reasons: [{ ...reasons[0], tool: "t" }] })).toEqual([]);
    expect(
      issues(externalScoreSchema, {
        source: "external",
        trajectory_id: "t",
        run_id: long,
        step: 1,
        ticket_id: "T",
        reward: 1,
      }),
    ).toEqual([{ path: "run_id", message: tooLong }]);
  });
});

describe("lists and integers inside a record", () => {
  const record = () => scoreRollout(rolloutSchema.parse(makeRollout()), caseSchema.parse(makeCase()));
  const hit = (code: string) => ({ code, cap: 0.2, evidence: {} });

  it("refuse a repeated guardrail, claimed write or forbidden hit, naming the repeat and its first index", () => {
    const r = record();
    const repeated = {
      ...r,
      status: "scored",
      guardrails: [hit("policy_error"), hit("empty_promise"), hit("policy_error")],
    };
    expect(issues(scoreRecordSchema, repeated)).toEqual([
      {
        path: "guardrails.2.code",
        message: 'repeats the guardrail "policy_error" (first at index 0): each is listed once',
      },
    ]);
    const bomb = { ...r, guardrails: Array.from({ length: 100_000 }, () => hit("policy_error")) };
    expect(issues(scoreRecordSchema, bomb)[0]).toEqual({
      path: "guardrails.1.code",
      message: 'repeats the guardrail "policy_error" (first at index 0): each is listed once',
    });
    const claims = { claimed_writes: ["a.b", "c.d", "a.b"], mentioned: [], forbidden_hits: ["x", "x"] };
    expect(issues(claimsSchema, claims)).toEqual([
      { path: "claimed_writes.2", message: 'repeats the tool "a.b" (first at index 0): each is listed once' },
      { path: "forbidden_hits.1", message: 'repeats the code "x" (first at index 0): each is listed once' },
    ]);
    const external = { source: "external", trajectory_id: "a", run_id: "r", step: 1, ticket_id: "T", reward: 0.7 };
    expect(
      issues(scoreRecordSchema, { ...external, guardrails: ["empty_promise", { code: "empty_promise" }] }),
    ).toEqual([
      {
        path: "guardrails.1",
        message: 'repeats the guardrail "empty_promise" (first at index 0): each is listed once',
      },
    ]);
  });

  it("bound reasons, claims and steps, naming the list and its length", () => {
    const r = record();
    const reason = { code: "x", message: "m" };
    expect(issues(scoreRecordSchema, { ...r, reasons: Array.from({ length: MAX_REASONS + 1 }, () => reason) })).toEqual(
      [{ path: "reasons", message: `at most ${MAX_REASONS} reasons (got ${MAX_REASONS + 1})` }],
    );
    const mentions = Array.from({ length: MAX_CLAIMS + 1 }, (_, i) => ({ key: `k${i}` }));
    expect(issues(claimsSchema, { mentioned: mentions })).toEqual([
      { path: "mentioned", message: `at most ${MAX_CLAIMS} mentions (got ${MAX_CLAIMS + 1})` },
    ]);
    const rollout = makeRollout();
    const steps = Array.from({ length: MAX_STEPS + 1 }, () => ({ type: "llm", output: "" }));
    expect(
      issues(rolloutSchema, { ...rollout, trajectory: { ...rollout.trajectory, steps }, sandbox: { writes: [] } }),
    ).toEqual([{ path: "trajectory.steps", message: `at most ${MAX_STEPS} steps (got ${MAX_STEPS + 1})` }]);
  });

  it("hold step, sample_index and tool_steps to the ledger's 32-bit integers", () => {
    const r = record();
    const tooBig = `at most ${INT4_MAX} (the ledger stores it as a 32-bit integer)`;
    expect(issues(scoreRecordSchema, { ...r, step: INT4_MAX })).toEqual([]);
    for (const field of ["step", "sample_index", "tool_steps"])
      expect(issues(scoreRecordSchema, { ...r, [field]: 2 ** 31 })).toEqual([{ path: field, message: tooBig }]);
    expect(issues(rolloutSchema, { ...makeRollout(), step: 2 ** 40 })).toEqual([{ path: "step", message: tooBig }]);
  });
});
