// The code component: the user's Python `cal_reward(payload)` run by the sandbox's warm workers (lib/rewards/sandbox),
// one pool per code component of a run, closed with the run. Its outcome's status is the component's; stdout and
// stderr are kept for Try it. The syntax check of a version's code runs inside the sandbox too.
import { CodeRewardPool, checkPythonSyntax, sandboxAvailability } from "@/lib/rewards/sandbox/index.ts";
import type { ComponentEvaluator } from "@/lib/rewards/evaluate.ts";
import { platformPayload } from "@/lib/rewards/input.ts";
import type { CodeComponent, VersionDocument } from "@/lib/rewards/schema.ts";
import type { Issue } from "@/lib/verifier/schema.ts";

/** What a run's code components hold open: their pools. */
export class CodePools {
  private readonly pools: CodeRewardPool[] = [];
  constructor(private readonly workers = 2) {}

  evaluator(c: CodeComponent): ComponentEvaluator {
    const pool = new CodeRewardPool({ source: c.source, workers: this.workers, limits: { timeoutMs: c.timeout_ms } });
    this.pools.push(pool);
    return async (input) => {
      const o = await pool.run(platformPayload(input));
      return {
        status: o.status,
        value: o.status === "ok" ? o.reward : null,
        ...(o.error ? { error: o.error } : {}),
        detail: { stdout: o.stdout, stderr: o.stderr, latency_ms: Math.round(o.latencyMs) },
      };
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.splice(0).map((p) => p.close()));
  }
}

/**
 * The Python syntax errors of the document's code components, each at `components.N.source` with its line and
 * column; `warning` when the sandbox is not available to check them (the version is stored, its runs end
 * `unavailable` until the sandbox is).
 */
export async function codeIssues(doc: VersionDocument): Promise<{ issues: Issue[]; warning: string | null }> {
  const code = doc.components.flatMap((c, i) => (c.kind === "code" ? [{ c, i }] : []));
  if (code.length === 0) return { issues: [], warning: null };
  const available = sandboxAvailability();
  if (!available.ok) return { issues: [], warning: `the Python source was not checked: ${available.reason}` };
  const issues: Issue[] = [];
  for (const { c, i } of code) {
    const r = await checkPythonSyntax(c.source);
    if (!r.ok)
      issues.push({ path: `components.${i}.source`, message: `line ${r.line}, column ${r.column}: ${r.message}` });
  }
  return { issues, warning: null };
}
