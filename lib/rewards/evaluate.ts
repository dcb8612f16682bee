// One version of a reward function, compiled once and evaluated per rollout: each component's value is kept, the
// reward is Σ weight × value when every component succeeded, and otherwise the outcome carries the first failing
// component's status and error with no reward (a failure is never a 0). The judge and code components are supplied
// by the caller (judge.ts, code.ts), which owns their connections and workers.
import { compilePattern } from "@/lib/rewards/regex.ts";
import { referenceOf, replyOf, type RewardInput } from "@/lib/rewards/input.ts";
import { exactMatchValue, formatValue, mathValue, type RuleOutcome } from "@/lib/rewards/rules.ts";
import type { CodeComponent, JudgeComponent, RewardComponent, VersionDocument } from "@/lib/rewards/schema.ts";
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export const RESULT_STATUSES = ["ok", "error", "timeout", "invalid_output", "unavailable"] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** What one component gave on one rollout. `value` is null unless status is ok. */
export type ComponentEval = {
  status: ResultStatus;
  value: number | null;
  error?: string;
  detail?: Record<string, unknown>;
  tokens?: number;
  cost?: number;
};

export type ComponentResult = ComponentEval & { kind: RewardComponent["kind"]; name: string; weight: number };

export type RewardOutcome = {
  status: ResultStatus;
  reward: number | null;
  components: ComponentResult[];
  error: string | null;
  latencyMs: number;
  judgeTokens: number;
  cost: number;
};

export type ComponentEvaluator = (input: RewardInput) => ComponentEval | Promise<ComponentEval>;

export type EvaluatorFactories = {
  /** Stored verifier configs by hash (the version's verifier components name theirs). */
  verifierConfigs?: ReadonlyMap<string, VerifierConfig>;
  judge?: (c: JudgeComponent) => ComponentEvaluator;
  code?: (c: CodeComponent) => ComponentEvaluator;
};

const unavailable =
  (error: string): ComponentEvaluator =>
  () => ({ status: "unavailable", value: null, error });

function fromRule(r: RuleOutcome): ComponentEval {
  return r.ok ? { status: "ok", value: r.value, detail: r.detail } : { status: "error", value: null, error: r.error };
}

function compiledRegex(pattern: string | undefined, flags: string): RegExp | null {
  if (pattern === undefined) return null;
  const r = compilePattern(pattern, flags);
  // Stored versions were validated; a pattern that stops compiling (another engine) fails loudly.
  if (!r.ok) throw new Error(`pattern does not compile: ${r.message}`);
  return r.re;
}

function compileComponent(c: RewardComponent, f: EvaluatorFactories): ComponentEvaluator {
  switch (c.kind) {
    case "format": {
      const re = compiledRegex(c.pattern, c.flags)!;
      return (input) => fromRule(formatValue(re, replyOf(input)));
    }
    case "exact_match": {
      const re = compiledRegex(c.pattern, c.flags);
      return (input) => {
        const ref = referenceOf(input, c.reference);
        if (!ref.ok) return { status: "error", value: null, error: ref.error };
        return fromRule(exactMatchValue(re, replyOf(input), ref.value, c.normalize));
      };
    }
    case "math": {
      const re = compiledRegex(c.pattern, c.flags);
      return (input) => {
        const ref = referenceOf(input, c.reference);
        if (!ref.ok) return { status: "error", value: null, error: ref.error };
        return fromRule(mathValue(re, replyOf(input), ref.value, c.tolerance, c.normalize));
      };
    }
    case "verifier": {
      const config = c.config_hash ? f.verifierConfigs?.get(c.config_hash) : DEFAULT_CONFIG;
      if (!config) return unavailable(`verifier config ${c.config_hash} is not stored`);
      return (input) => {
        if (!input.caseDoc) return { status: "error", value: null, error: "the rollout's case is not stored" };
        const rec = scoreRollout(input.rollout, input.caseDoc, config);
        if (rec.reward === null || rec.reward === undefined)
          return { status: "error", value: null, error: "the verifier gave no reward" };
        return {
          status: "ok",
          value: rec.reward,
          detail: {
            raw_reward: rec.raw_reward,
            subscores: rec.subscores,
            guardrails: rec.guardrails.map((g) => g.code),
          },
        };
      };
    }
    case "judge":
      return f.judge ? f.judge(c) : unavailable("no judge is configured for this run");
    case "code":
      return f.code ? f.code(c) : unavailable("code rewards need the sandbox, which this run does not have");
  }
}

export type CompiledVersion = { evaluate(input: RewardInput): Promise<RewardOutcome> };

export function componentName(c: RewardComponent, i: number): string {
  return c.name ?? `${c.kind}#${i + 1}`;
}

/** Compiles every component once; evaluate runs them concurrently on one rollout and combines them. */
export function compileVersion(doc: VersionDocument, f: EvaluatorFactories = {}): CompiledVersion {
  const parts = doc.components.map((c, i) => ({
    kind: c.kind,
    name: componentName(c, i),
    weight: c.weight,
    run: compileComponent(c, f),
  }));
  return {
    evaluate(input) {
      const t0 = performance.now();
      // Rule components answer synchronously: only a judge or code component makes the rollout wait on a promise.
      const evals = parts.map((p) => attempt(p.run, input));
      const label = (e: ComponentEval, i: number): ComponentResult => ({
        kind: parts[i].kind,
        name: parts[i].name,
        weight: parts[i].weight,
        ...e,
      });
      if (evals.every((e) => !(e instanceof Promise)))
        return Promise.resolve(combine((evals as ComponentEval[]).map(label), performance.now() - t0));
      return Promise.all(evals).then((done) => combine(done.map(label), performance.now() - t0));
    },
  };
}

function attempt(run: ComponentEvaluator, input: RewardInput): ComponentEval | Promise<ComponentEval> {
  try {
    const r = run(input);
    return r instanceof Promise ? r.catch(failed) : r;
  } catch (err) {
    return failed(err);
  }
}

function failed(err: unknown): ComponentEval {
  return { status: "error", value: null, error: (err as Error).message };
}

/** Σ weight × value when every component is ok; else the first failure's status, no reward. */
export function combine(components: ComponentResult[], latencyMs: number): RewardOutcome {
  const judgeTokens = components.reduce((s, c) => s + (c.tokens ?? 0), 0);
  const cost = components.reduce((s, c) => s + (c.cost ?? 0), 0);
  const failed = components.find((c) => c.status !== "ok");
  if (failed)
    return {
      status: failed.status,
      reward: null,
      components,
      error: `${failed.name}: ${failed.error ?? failed.status}`,
      latencyMs,
      judgeTokens,
      cost,
    };
  let reward = 0;
  for (const c of components) reward += c.weight * (c.value as number);
  if (!Number.isFinite(reward))
    return {
      status: "invalid_output",
      reward: null,
      components,
      error: "the reward is not finite",
      latencyMs,
      judgeTokens,
      cost,
    };
  return { status: "ok", reward, components, error: null, latencyMs, judgeTokens, cost };
}
