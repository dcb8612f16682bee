// Derived facts that a sub-score and a guardrail share, computed once per rollout: which sandbox write each
// required write took (outcome, unauthorized_write, `after` evidence), the policy violations (policy,
// policy_error) and the evidence obligations (evidence, missing_evidence).
import type { CompiledSpec, ReadReq } from "@/lib/verifier/compile-case.ts";
import { argsMatch, eq } from "@/lib/verifier/equality.ts";
import { satisfiedBefore, type Facts, type WriteFact } from "@/lib/verifier/facts.ts";

export type WriteMatching = {
  /** Per required write (spec order): index of the sandbox write it took, or -1. */
  writeOf: number[];
  /** Per sandbox write: index of the required write that took it, or -1. */
  takenBy: number[];
  matched: number;
};

/** Greedy, in spec order: each required write takes the first not-yet-taken sandbox write that args-matches it. */
export function matchRequiredWrites(spec: CompiledSpec, facts: Facts): WriteMatching {
  // A plain array: typed arrays are costly to allocate for a handful of entries, once per rollout.
  const takenBy: number[] = facts.writes.map(() => -1);
  const writeOf: number[] = [];
  let matched = 0;
  spec.requiredWrites.forEach((rw, r) => {
    let taken = -1;
    for (const w of facts.writes) {
      if (takenBy[w.index] < 0 && w.tool === rw.tool && argsMatch(w.args, rw.args)) {
        taken = w.index;
        takenBy[taken] = r;
        matched++;
        break;
      }
    }
    writeOf.push(taken);
  });
  return { writeOf, takenBy, matched };
}

export type PolicyViolation = { write: WriteFact; ruleIndex: number; arg: string; expected: unknown; actual: unknown };

/** A sandbox write of a rule's tool whose args[rule.arg] is missing or not eq to the resolved rule.equals. */
export function policyViolations(spec: CompiledSpec, facts: Facts): PolicyViolation[] {
  const out: PolicyViolation[] = [];
  if (spec.policyRules.length === 0) return out;
  for (const w of facts.writes) {
    spec.policyRules.forEach((rule, ruleIndex) => {
      if (w.tool !== rule.tool) return;
      const actual = Object.hasOwn(w.args, rule.arg) ? w.args[rule.arg] : undefined;
      if (actual === undefined || !eq(actual, rule.equals)) {
        out.push({ write: w, ruleIndex, arg: rule.arg, expected: rule.equals, actual });
      }
    });
  }
  return out;
}

export type Obligation = {
  req: ReadReq;
  /** Where the obligation comes from: "required_reads.1" or "required_writes.0.after.2". */
  field: string;
  /** The sandbox write it must precede (undefined: no write, so anywhere in the trajectory counts). */
  before: WriteFact | undefined;
  satisfied: boolean;
};

/**
 * Evidence obligations: every required read before the first sandbox write (the earliest position; anywhere when
 * there is none), and every `after` read of a *matched* required write before the write it took. An unmatched
 * required write creates no obligation: outcome already counts it.
 */
export function evidenceObligations(spec: CompiledSpec, facts: Facts, match: WriteMatching): Obligation[] {
  const out: Obligation[] = [];
  let first: WriteFact | undefined;
  for (const w of facts.writes) if (!first || w.position < first.position) first = w;
  const firstPos = first ? first.position : Infinity;
  spec.requiredReads.forEach((req, i) => {
    out.push({ req, field: `required_reads.${i}`, before: first, satisfied: satisfiedBefore(req, facts, firstPos) });
  });
  spec.requiredWrites.forEach((rw, r) => {
    const wi = match.writeOf[r];
    if (wi < 0) return;
    const w = facts.writes[wi];
    rw.after.forEach((req, j) => {
      out.push({
        req,
        field: `required_writes.${r}.after.${j}`,
        before: w,
        satisfied: satisfiedBefore(req, facts, w.position),
      });
    });
  });
  return out;
}
