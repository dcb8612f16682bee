// `verity gate --run R [--window-steps N] [--rules FILE] [--json]`: the audit gate a training loop can obey. One line
// per rule with its value, threshold and interval, or with --json what GET /api/v1/runs/R/gate returns; the exit
// status is the verdict (docs/gate.md).
import fs from "node:fs";
import { flagSpec, flagIssueMessage, type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import { createClient } from "@/lib/db/client.ts";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import type { GateReport, GateRuleResult } from "@/lib/gate/evaluate.ts";
import { GATE_EXIT, loadGateReport } from "@/lib/gate/loaders.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";
import { gateCliSchema, parseGateRulesFile, queryIssues, type GateRulesFile } from "@/lib/gate/schema.ts";

const USAGE = `usage: verity gate --run RUN [--window-steps N] [--rules FILE] [--json]

Evaluates the audit gate of RUN over its last N steps (default: the rules file's window_steps, else the run's
reward-hacking window, 2,000 steps unless a lead changed it). It fails (stop training) on reward hacking (the
ledger's success rising while the audit-corrected success does not), shadow agreement's or pairwise ordering
agreement's lower bound under its floor, and trained-reward mismatch over its ceiling; the guardrail hit rate outside
its band, the hand-off rate over its ceiling and extraction accuracy under its floor are health warnings that leave
a pass a pass. The rules default to the run's alarm thresholds; --rules FILE overrides them (docs/gate.md). Prints
one line per rule, or with --json the same JSON as GET /api/v1/runs/RUN/gate.

exit status: 0 pass (with or without warnings), 1 fail, 2 not enough evidence, 3 usage error, unknown run or
unreachable database.`;

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toString()}%`;

function fmt(r: GateRuleResult, x: number | undefined): string {
  if (x === undefined) return "";
  // reward hacking's value, line and interval: a share's slope per 1,000 steps, in percentage points
  return r.rule === "reward_hacking" ? `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(2)}pts/1k` : pct(x);
}

/** A sampled figure's 95% interval; a full count of the window's rollouts has none. */
function interval(r: GateRuleResult): string {
  if (r.interval) return `95% ${fmt(r, r.interval.lower)} to ${fmt(r, r.interval.upper)}`;
  return r.value !== null && r.unit === "rollouts" ? "full count" : "–";
}

/** The threshold of a rule as one cell: "10%–30%", "≤ 10%", "≥ 85%". */
function threshold(r: GateRuleResult): string {
  const { min, max } = r.threshold;
  if (min !== undefined && max !== undefined) return `${fmt(r, min)}–${fmt(r, max)}`;
  if (max !== undefined) return `≤ ${fmt(r, max)}`;
  if (min !== undefined) return `≥ ${fmt(r, min)}${r.rule === "agreement" ? " (lower bound)" : ""}`;
  return "–";
}

export function formatGate(report: GateReport): string[] {
  const w = report.window;
  const warned = report.warnings.length ? ` with warnings (${report.warnings.join(", ")})` : "";
  const head = `gate ${report.verdict.toUpperCase()}${warned} for run ${report.run}, steps ${w.from ?? "–"}–${w.to ?? "–"} (last ${w.steps.toLocaleString("en-US")} steps)`;
  const lines = [head];
  for (const r of report.rules) {
    const value = r.value === null ? "–" : fmt(r, r.value);
    lines.push(
      `${r.status.toUpperCase().padEnd(12)} ${r.rule.padEnd(16)} value ${value.padEnd(11)} threshold ${threshold(r).padEnd(22)} ${interval(r).padEnd(30)} ${r.message}`,
    );
  }
  return lines;
}

function readRules(file: string): { ok: true; file: GateRulesFile } | { ok: false; errors: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    return { ok: false, errors: [`cannot read ${file}: ${(err as Error).message}`] };
  }
  const r = parseGateRulesFile(text);
  return r.ok ? r : { ok: false, errors: r.errors.map((e) => `${file}: ${e}`) };
}

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const flags = parseFlags("gate", USAGE, argv, flagSpec(["run", "window-steps", "rules"], ["json"]), io);
  // parseFlags gives 2 for a usage error; here 2 is "not enough evidence".
  if ("exit" in flags) return flags.exit === 0 ? 0 : GATE_EXIT.error;
  const parsed = gateCliSchema.safeParse(flags.values);
  if (!parsed.success) {
    io.err(`verity gate: ${flagIssueMessage(queryIssues(parsed.error), "")}\n\n${USAGE}`);
    return GATE_EXIT.error;
  }
  const { run: runId, "window-steps": windowSteps, rules, json } = parsed.data;
  const file = rules === undefined ? null : readRules(rules);
  if (file && !file.ok) {
    for (const e of file.errors) io.err(`verity gate: --rules ${e}`);
    return GATE_EXIT.error;
  }
  let database: Awaited<ReturnType<typeof ensureDatabase>>;
  try {
    database = await ensureDatabase();
    await migrate(database.url);
  } catch (err) {
    io.err(`verity gate: ${err instanceof Error ? err.message : String(err)}`);
    return GATE_EXIT.error;
  }
  const client = createClient(database.url);
  try {
    // The run's own gate (its rules, its window) is the verdict the console stores and the webhook follows.
    const report =
      !file && windowSteps === undefined
        ? (await evaluateRunGate(runId, {}, client)).report
        : await loadGateReport(runId, { windowSteps, file: file?.file ?? null }, client);
    if (!report) {
      io.err(`verity gate: no run ${JSON.stringify(runId)}`);
      return GATE_EXIT.error;
    }
    if (json) io.out(JSON.stringify(report));
    else for (const l of formatGate(report)) io.out(l);
    return GATE_EXIT[report.verdict];
  } catch (err) {
    io.err(`verity gate: ${err instanceof Error ? err.message : String(err)}`);
    return GATE_EXIT.error;
  } finally {
    await client.$disconnect();
    await database.stop().catch(() => undefined);
  }
}
