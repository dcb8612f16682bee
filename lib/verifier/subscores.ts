// The five sub-scores of verifier.md, each in [0, 1] with the reasons that explain any value below 1.
import type { Obligation, PolicyViolation, WriteMatching } from "@/lib/verifier/analysis.ts";
import type { Dimension } from "@/lib/verifier/codes.ts";
import { pointerAt, type CompiledSpec } from "@/lib/verifier/compile-case.ts";
import type { VerifierConfig } from "@/lib/verifier/config.ts";
import { argsMatch, mentionEq, mismatchedFields, own } from "@/lib/verifier/equality.ts";
import { firstSatisfied, type Facts } from "@/lib/verifier/facts.ts";
import { makeReason, show, showExpected } from "@/lib/verifier/reasons.ts";
import type { Claims, Reason } from "@/lib/verifier/schema.ts";

export type ScoreContext = {
  spec: CompiledSpec;
  facts: Facts;
  claims: Claims;
  config: VerifierConfig;
  match: WriteMatching;
  violations: PolicyViolation[];
  obligations: Obligation[];
};
export type SubscoreResult = { score: number; reasons: Reason[] };

/** Outcome: the matched fraction f of required writes, adjusted by the hand-off table of verifier.md. */
export function outcome(ctx: ScoreContext): SubscoreResult {
  const { spec, facts, match, config } = ctx;
  const n = spec.requiredWrites.length;
  const f = n === 0 ? undefined : match.matched / n;
  let score: number;
  if (!facts.handoff) {
    if (spec.handoff === "required") {
      return {
        score: 0,
        reasons: [
          makeReason({
            dimension: "outcome",
            code: "handoff_required_missing",
            message: "the case requires a hand-off to a human and no hand-off tool step succeeded",
          }),
        ],
      };
    }
    score = f ?? 1;
  } else if (spec.handoff === "required") {
    score = f ?? 1;
  } else if (spec.handoff === "allowed") {
    score = f === 1 ? 1 : config.handoff_outcome;
  } else {
    score = f ?? 0;
  }
  const reasons: Reason[] = [];
  if (score < 1 && facts.handoff && spec.handoff !== "required") {
    reasons.push(
      makeReason({
        dimension: "outcome",
        code: "handoff_instead_of_resolution",
        message:
          spec.handoff === "allowed"
            ? `handed off to a human without resolving the ticket (outcome ${config.handoff_outcome})`
            : "handed off to a human although the case does not allow a hand-off",
      }),
    );
  }
  if (score < 1) reasons.push(...unmatchedWriteReasons(ctx));
  return { score, reasons };
}

/** Per unmatched required write: the mismatching fields of the closest sandbox write, or "missing". */
function unmatchedWriteReasons({ spec, facts, match }: ScoreContext): Reason[] {
  const reasons: Reason[] = [];
  spec.requiredWrites.forEach((rw, r) => {
    if (match.writeOf[r] >= 0) return;
    const candidate = facts.writes.find((w) => match.takenBy[w.index] < 0 && w.tool === rw.tool);
    const fields = candidate && rw.args ? mismatchedFields(candidate.args, rw.args) : [];
    if (!candidate || !rw.args || fields.length === 0) {
      reasons.push(
        makeReason({
          dimension: "outcome",
          code: "required_write_missing",
          tool: rw.tool,
          expected: rw.args,
          message: `required write ${rw.tool} not in the sandbox ledger`,
        }),
      );
      return;
    }
    const rawArgs = spec.raw.required_writes?.[r]?.args ?? {};
    for (const field of fields) {
      const pointer = pointerAt(rawArgs[field]);
      const actual = own(candidate.args, field);
      reasons.push(
        makeReason({
          dimension: "outcome",
          code: "required_write_args_mismatch",
          tool: rw.tool,
          field,
          pointer,
          expected: rw.args[field],
          actual: actual === undefined ? null : actual,
          message: `${rw.tool} ${field}: expected ${showExpected(rw.args[field], pointer)}, sandbox write #${candidate.index} has ${show(actual)}`,
        }),
      );
    }
  });
  return reasons;
}

/** Policy: 0.5 × (policy query made) + 0.5 × (no policy violation); only the rules part without a query. */
export function policy(ctx: ScoreContext): SubscoreResult {
  const { spec, facts, violations } = ctx;
  const reasons: Reason[] = [];
  const rulesOk = violations.length === 0 ? 1 : 0;
  let score = rulesOk;
  const q = spec.policyQuery;
  if (q) {
    const queryOk = facts.toolSteps.some((t) => t.ok && t.name === q.tool && argsMatch(t.args, q.args)) ? 1 : 0;
    score = 0.5 * queryOk + 0.5 * rulesOk;
    if (!queryOk) {
      const tried = facts.toolSteps.find((t) => t.ok && t.name === q.tool);
      reasons.push(
        makeReason({
          dimension: "policy",
          code: "policy_query_missing",
          tool: q.tool,
          expected: q.args,
          actual: tried ? tried.args : undefined,
          message: tried
            ? `policy query ${q.tool} was made with ${show(tried.args)}, expected ${show(q.args)}`
            : `policy query ${q.tool}${q.args ? ` ${show(q.args)}` : ""} was never made successfully`,
        }),
      );
    }
  }
  for (const v of violations) {
    const pointer = pointerAt(spec.raw.policy?.rules?.[v.ruleIndex]?.equals);
    reasons.push(
      makeReason({
        dimension: "policy",
        code: "policy_rule_violated",
        tool: v.write.tool,
        field: v.arg,
        pointer,
        expected: v.expected,
        actual: v.actual === undefined ? null : v.actual,
        message: `${v.write.tool} ${v.arg}: policy requires ${showExpected(v.expected, pointer)}, sandbox write #${v.write.index} has ${show(v.actual)}`,
      }),
    );
  }
  return { score, reasons };
}

/** Evidence: satisfied obligations / all obligations (1 when there are none). */
export function evidence(ctx: ScoreContext): SubscoreResult {
  const { obligations, facts } = ctx;
  if (obligations.length === 0) return { score: 1, reasons: [] };
  let satisfied = 0;
  const reasons: Reason[] = [];
  for (const o of obligations) {
    if (o.satisfied) {
      satisfied++;
      continue;
    }
    reasons.push(obligationReason("evidence", o, firstSatisfied(o.req, facts)));
  }
  return { score: satisfied / obligations.length, reasons };
}

/** Reason for an unsatisfied obligation; shared with the missing_evidence guardrail. */
export function obligationReason(
  owner: Dimension | "missing_evidence",
  o: Obligation,
  firstAt: number | undefined,
): Reason {
  const guardrail = owner === "missing_evidence" ? owner : undefined;
  const code = guardrail ?? (firstAt === undefined ? "required_read_missing" : "required_read_after_write");
  const where = o.before
    ? ` before ${o.before.tool} (sandbox write #${o.before.index} at step ${o.before.position})`
    : "";
  const seen = firstAt === undefined ? "it never succeeded" : `it first succeeded at step ${firstAt}`;
  return makeReason({
    dimension: guardrail ? undefined : (owner as Dimension),
    guardrail,
    code,
    tool: o.req.label,
    field: o.field,
    expected: o.before ? { before_step: o.before.position, write: o.before.tool } : "any step",
    actual: firstAt === undefined ? null : { step: firstAt },
    message: `${o.req.label} must be read${where}; ${seen}`,
  });
}

/** Efficiency: 1 within the step budget, then linearly down to 0 at twice the budget. */
export function efficiency({ spec, facts }: ScoreContext): SubscoreResult {
  const n = facts.toolSteps.length;
  const budget = spec.budget;
  if (n <= budget) return { score: 1, reasons: [] };
  return {
    score: Math.max(0, 1 - (n - budget) / budget),
    reasons: [
      makeReason({
        dimension: "efficiency",
        code: "over_step_budget",
        expected: budget,
        actual: n,
        message: `${n} tool steps for a budget of ${budget}`,
      }),
    ],
  };
}

/** Communication: share of must_mention items satisfied, minus 0.5 when a forbidden expression was used. */
export function communication({ spec, claims }: ScoreContext): SubscoreResult {
  const reasons: Reason[] = [];
  let satisfied = 0;
  spec.mustMention.forEach((item, i) => {
    const same = claims.mentioned.filter((m) => m.key === item.key);
    if (
      same.length > 0 &&
      (!item.hasValue || same.some((m) => m.value !== undefined && mentionEq(m.value, item.value)))
    ) {
      satisfied++;
      return;
    }
    const pointer = pointerAt(spec.raw.must_mention?.[i]?.value);
    if (same.length === 0) {
      reasons.push(
        makeReason({
          dimension: "communication",
          code: "mention_missing",
          field: item.key,
          pointer,
          expected: item.hasValue ? item.value : undefined,
          message: `the reply does not mention ${item.key}`,
        }),
      );
    } else {
      const actual = same.map((m) => (m.value === undefined ? null : m.value));
      reasons.push(
        makeReason({
          dimension: "communication",
          code: "mention_value_mismatch",
          field: item.key,
          pointer,
          expected: item.value,
          actual: actual.length === 1 ? actual[0] : actual,
          message: `the reply mentions ${item.key} ${showMentions(same)}, expected ${showExpected(item.value, pointer)}`,
        }),
      );
    }
  });
  const mention = spec.mustMention.length === 0 ? 1 : satisfied / spec.mustMention.length;
  const hits = [...new Set(claims.forbidden_hits.filter((c) => spec.forbidden.has(c)))];
  for (const code of hits) {
    reasons.push(
      makeReason({
        dimension: "communication",
        code: "forbidden_expression",
        field: code,
        message: `the reply uses a forbidden expression: ${code}`,
      }),
    );
  }
  return { score: Math.max(0, mention - (hits.length > 0 ? 0.5 : 0)), reasons };
}

/**
 * How the reply mentions a key: "as 50", "without a value", or "3 times (as 50, without a value, as 51)". A
 * mention without a value is said so, not shown as null (a null value is a value, and may be the expected one).
 */
function showMentions(mentions: { value?: unknown }[]): string {
  const one = (m: { value?: unknown }) => (m.value === undefined ? "without a value" : `as ${show(m.value)}`);
  return mentions.length === 1 ? one(mentions[0]) : `${mentions.length} times (${mentions.map(one).join(", ")})`;
}
