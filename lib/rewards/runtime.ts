// What evaluating a version needs beyond the document: its verifier configs (read from the database by hash), the
// judge's endpoint (VERITY_LLM_*, or the version's own) and the sandbox's pools for its code. Opened for a run or a
// Try it, and closed after it (the pools' workers are processes).
import type pg from "pg";
import { readLlmEnv } from "@/lib/claims/llm-env.ts";
import { CodePools } from "@/lib/rewards/code.ts";
import { compileVersion, type CompiledVersion } from "@/lib/rewards/evaluate.ts";
import { judgeEvaluator, type JudgeOptions } from "@/lib/rewards/judge.ts";
import type { VersionDocument } from "@/lib/rewards/schema.ts";
import { parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";

export type RuntimeOptions = { judge?: Partial<JudgeOptions>; codeWorkers?: number };

export type OpenVersion = { compiled: CompiledVersion; close(): Promise<void> };

async function verifierConfigs(q: pg.Pool | pg.PoolClient, doc: VersionDocument): Promise<Map<string, VerifierConfig>> {
  const hashes = doc.components.flatMap((c) => (c.kind === "verifier" && c.config_hash ? [c.config_hash] : []));
  const out = new Map<string, VerifierConfig>();
  if (hashes.length === 0) return out;
  const { rows } = await q.query<{ hash: string; body: unknown }>(
    "select hash, body from verifier_configs where hash = any($1::text[])",
    [hashes],
  );
  for (const r of rows) {
    const c = parseVerifierConfig(r.body);
    if (c.ok) out.set(r.hash, c.config);
  }
  return out;
}

export async function openVersion(
  q: pg.Pool | pg.PoolClient,
  doc: VersionDocument,
  opts: RuntimeOptions = {},
): Promise<OpenVersion> {
  const env = readLlmEnv();
  const judge: JudgeOptions = {
    env: env.ok ? env.value : null,
    envProblem: env.ok ? undefined : env.message.replace("LLM extractor", "the LLM judge"),
    ...opts.judge,
  };
  const pools = new CodePools(opts.codeWorkers ?? 2);
  const compiled = compileVersion(doc, {
    verifierConfigs: await verifierConfigs(q, doc),
    judge: (c) => judgeEvaluator(c, judge),
    code: (c) => pools.evaluator(c),
  });
  return { compiled, close: () => pools.close() };
}
