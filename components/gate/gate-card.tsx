import Link from "next/link";
import { Card } from "@/components/ui/card.tsx";
import { stepsHref } from "@/components/ui/id-links.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { GateReport, GateRuleResult, GateRuleStatus } from "@/lib/gate/evaluate.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

const STATUS_TEXT: Record<GateRuleStatus, string> = {
  pass: "pass",
  fail: "fail",
  warn: "warning",
  insufficient: "not enough evidence",
  off: "off",
};
const STATUS_CLASS: Record<GateRuleStatus, string> = {
  pass: "text-good",
  fail: "text-bad font-semibold",
  warn: "text-warn",
  insufficient: "text-warn",
  off: "text-fg-muted",
};

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toString()}%`;
// Reward hacking's value, line and interval are slopes of a share per 1,000 steps: shown in percentage points.
const fmt = (r: GateRuleResult, x: number) =>
  r.rule === "reward_hacking" ? `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(2)} pts / 1k steps` : pct(x);

/** A sampled figure's 95% interval; a full count of the window's rollouts has none. */
function interval(r: GateRuleResult): string {
  if (r.interval) return `${fmt(r, r.interval.lower)} to ${fmt(r, r.interval.upper)}`;
  return r.value !== null && r.unit === "rollouts" ? "full count" : "–";
}

const named = (report: GateReport, keys: string[]) =>
  keys.map((k) => report.rules.find((r) => r.rule === k)!.label.toLowerCase()).join(", ");

function verdictText(report: GateReport): string {
  const warnings = report.warnings;
  if (report.verdict === "fail") return `Fail: ${named(report, report.failed)}`;
  if (report.verdict === "insufficient") return `Not enough evidence: ${named(report, report.insufficient)}`;
  return warnings.length ? `Pass, with warnings: ${named(report, warnings)}` : "Pass";
}

function threshold(r: GateRuleResult): string {
  const { min, max } = r.threshold;
  if (min !== undefined && max !== undefined) return `${fmt(r, min)}–${fmt(r, max)}`;
  if (max !== undefined) return `≤ ${fmt(r, max)}`;
  if (min !== undefined) return `≥ ${fmt(r, min)}${r.rule === "agreement" ? " (lower bound)" : ""}`;
  return "–";
}

/**
 * Where a rule's evidence is read: the agreement report of the run for the human-checked rules, the reward leaderboard
 * of the window for ledger_rank, else the trajectory
 * browser on the gate's window, filtered to what the rule counts where the browser has that filter.
 */
export function gateRuleHref(report: GateReport, rule: string): string | null {
  if (rule === "agreement" || rule === "extraction") return `/agreement?run=${encodeURIComponent(report.run)}`;
  const { from, to } = report.window;
  if (from === null || to === null) return null;
  if (rule === "ledger_rank")
    return `/rewards/compare?${new URLSearchParams({ run: report.run, from: String(from), to: String(to) })}`;
  const filter: Record<string, Record<string, string>> = {
    hit_rate: { any: GUARDRAIL_CODES.join(",") },
    handoff: { handoff: "yes" },
    trained_mismatch: { trained_differs: "yes" },
  };
  return stepsHref(report.run, from, to, filter[rule] ?? {});
}

/**
 * The audit gate's current verdict of a run and each rule with its value, line and interval: what `verity gate` and
 * GET /api/v1/runs/{run}/gate answer (docs/gate.md). A health reading out of its line is a warning beside a pass.
 */
export function GateCard({ report }: { report: GateReport }) {
  const w = report.window;
  const verdict = verdictText(report);
  return (
    <Card
      title={
        <span>
          Audit gate{" "}
          <span data-testid="gate-verdict" data-verdict={report.verdict} className={STATUS_CLASS[report.verdict]}>
            {verdict}
          </span>
        </span>
      }
      actions={
        <span className="text-[12px] text-fg-muted">
          steps {w.from ?? "–"}–{w.to ?? "–"} (last {w.steps.toLocaleString("en-US")})
        </span>
      }
    >
      <Table>
        <Head cols={["Rule", "Result", ...numeric("Value", "Threshold", "95% interval"), "Why"]} />
        <tbody>
          {report.rules.map((r) => (
            <tr key={r.rule} data-rule={r.rule} data-status={r.status} data-severity={r.severity}>
              <Td>
                <RuleLabel report={report} rule={r} />
                {r.severity === "warn" && <span className="text-[11px] text-fg-muted"> · health reading</span>}
              </Td>
              <Td className={STATUS_CLASS[r.status]}>{STATUS_TEXT[r.status]}</Td>
              <Td numeric>{r.value === null ? "–" : fmt(r, r.value)}</Td>
              <Td numeric>{threshold(r)}</Td>
              <Td numeric>{interval(r)}</Td>
              <Td className="text-[12px] text-fg-muted">{r.message}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

function RuleLabel({ report, rule }: { report: GateReport; rule: GateRuleResult }) {
  const href = gateRuleHref(report, rule.rule);
  return href ? (
    <Link className="text-accent hover:underline" href={href}>
      {rule.label}
    </Link>
  ) : (
    <>{rule.label}</>
  );
}
