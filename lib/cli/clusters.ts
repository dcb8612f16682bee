// `verity clusters --run R [--from S --to S] [--threshold 0.5] [--json]`: the ranked clusters of low-scoring rollouts
// as a table (or the token API's JSON); `--export KEY [--out FILE]` writes one cluster's data backlog as NDJSON.
import { flagSpec, type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import fs from "node:fs";
import { once } from "node:events";
import { createClient } from "@/lib/db/client.ts";
import { runExists } from "@/lib/clusters/detail-data.ts";
import { clusterBacklog } from "@/lib/clusters/export.ts";
import { parseKey } from "@/lib/clusters/keys.ts";
import { type FullReport, loadFullReport, withPinsFirst } from "@/lib/clusters/loaders.ts";
import { type ClusterStats, unscoredLine } from "@/lib/clusters/report.ts";
import { clusterWindowSchema, STATUS_LABELS, toWindow } from "@/lib/clusters/schema.ts";
import { fieldMessages } from "@/lib/result.ts";
import { reportToWire } from "@/lib/clusters/wire.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";

const USAGE = `usage: verity clusters --run RUN [--from STEP] [--to STEP] [--threshold T] [--json] [--no-phrasings]
       verity clusters --run RUN [--from STEP] [--to STEP] [--threshold T] --export KEY [--out FILE]
       verity clusters fix --run RUN --cluster KEY (--handoff MODE | --require-write TOOL[:FIELD=VALUE,...]) ...
                           (the bulk fix of a cluster's cases: verity clusters fix --help)

Clusters the run's current ledger entries with a reward below T (default 0.5) in the step window: by deciding
guardrail (or weakest sub-score), then reason signature, then ticket category; plus the co-fired guardrail sets and
the blind spot (hand-offs without a sandbox write that triggered nothing and whose outcome is still credited,
whatever their reward). Ranked by priority
= share × (0.9 − mean reward) × (1 + growth over 1,000 steps). --json prints what GET /api/v1/runs/RUN/clusters
returns; --export writes one cluster (a KEY from the table or the JSON) as NDJSON: tickets, cases, reason
signatures and example rollouts.

exit status: 0 done, 1 unknown run, 2 usage.`;

const pct = (x: number | null) => (x === null ? "–" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "–" : x.toFixed(3));
const int = (x: number | null) => (x === null ? "–" : x.toLocaleString("en-US"));
const trend = (c: ClusterStats) => `${pct(c.trend.early)} → ${pct(c.trend.late)}`;
// A share's slope per step as percentage points per 1,000 steps.
const slope = (c: ClusterStats) =>
  c.trend.slope === null ? "–" : `${c.trend.slope >= 0 ? "+" : ""}${(c.trend.slope * 1e5).toFixed(2)}pt`;

function row(cells: string[], widths: number[]): string {
  return cells
    .map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
    .join("  ")
    .trimEnd();
}

export function formatReport(full: FullReport): string[] {
  const { report: r, states, extras } = full;
  const lines = [
    `run ${r.runId}, steps ${r.from ?? "–"}–${r.to ?? "–"}, reward below ${r.threshold}: ${int(r.rollouts)} rollouts, ${int(r.population)} below (${pct(r.rollouts ? r.population / r.rollouts : null)})`,
    ...(r.unscored > 0 ? [`note: ${unscoredLine(r)}`] : []),
    "",
  ];
  const widths = [4, 44, 8, 7, 7, 6, 7, 16, 9, 8];
  lines.push(
    row(
      ["rank", "cluster", "size", "share", "tickets", "mean", "removed", "early → late", "slope/1k", "priority"],
      widths,
    ),
  );
  withPinsFirst(r.clusters, states).forEach((c, i) => {
    const s = states.get(c.key);
    const tag = s ? ` [${s.pinned ? "pinned, " : ""}${STATUS_LABELS[s.status]}]` : "";
    lines.push(
      row(
        [
          String(i + 1),
          c.key + tag,
          int(c.size),
          pct(c.share),
          int(c.tickets),
          num(c.meanReward),
          num(c.removedByCap),
          trend(c),
          slope(c),
          num(c.priority?.score ?? null),
        ],
        widths,
      ),
    );
    for (const sig of c.signatures.slice(0, 3))
      lines.push(
        `        ${sig.estimated ? "≈" : " "}${int(sig.size).padStart(7)} (${pct(sig.ofParent)} of it)  ${sig.label}`,
      );
    const top = extras.get(c.key)?.phrasings?.phrasings[0];
    if (top)
      lines.push(
        `        top reply (${top.count} of ${extras.get(c.key)!.phrasings!.sampled}): ${JSON.stringify(top.text.slice(0, 100))}`,
      );
  });
  const b = r.blindSpot;
  lines.push("", `blind spot (${b.key}): ${b.label}`);
  lines.push(
    `  ${int(b.size)} rollouts (${pct(b.share)}), ${int(b.tickets)} tickets, mean reward ${num(b.meanReward)}, share ${trend(b)}, slope ${slope(b)}, priority ${num(b.priority?.score ?? null)}`,
  );
  const bt = extras.get(b.key)?.phrasings?.phrasings[0];
  if (bt)
    lines.push(
      `  top reply (${bt.count} of ${extras.get(b.key)!.phrasings!.sampled}): ${JSON.stringify(bt.text.slice(0, 100))}`,
    );
  if (r.cofired.length) {
    lines.push("", "co-fired guardrail sets:");
    for (const c of r.cofired.slice(0, 10))
      lines.push(
        `  ${int(c.size).padStart(8)}  ${pct(c.share).padStart(6)}  ${trend(c).padEnd(16)} ${c.codes.join(" + ")}`,
      );
  }
  if (r.guardrails.length) {
    lines.push("", "guardrails triggered in the population (deciding or not):");
    for (const g of r.guardrails)
      lines.push(
        `  ${g.code.padEnd(22)} ${int(g.size).padStart(8)}  ${pct(g.share).padStart(6)}  ${pct(g.trend.early)} → ${pct(g.trend.late)}`,
      );
  }
  return lines;
}

export async function run(argv: string[], out: Io = stdio): Promise<number> {
  if (argv[0] === "fix") return (await import("@/lib/cli/clusters-fix.ts")).run(argv.slice(1), out);
  const flags = parseFlags(
    "clusters",
    USAGE,
    argv,
    flagSpec(["run", "from", "to", "threshold", "export", "out"], ["json", "no-phrasings"]),
    out,
  );
  if ("exit" in flags) return flags.exit;
  const { values } = flags;
  const flag: Record<string, string> = { run: "--run", step_from: "--from", step_to: "--to", threshold: "--threshold" };
  const parsed = clusterWindowSchema.safeParse({
    run: values.run ?? "",
    step_from: values.from,
    step_to: values.to,
    threshold: values.threshold,
  });
  const key = values.export === undefined ? null : parseKey(values.export);
  if (!parsed.success || (values.export !== undefined && !key)) {
    const problems = [
      ...(parsed.success
        ? []
        : fieldMessages(parsed.error).map((m) => m.replace(/^(\w+):/, (_, f: string) => `${flag[f] ?? f}:`))),
      ...(values.export !== undefined && !key ? ["--export: is not a cluster key"] : []),
    ];
    out.err(`verity clusters: ${problems.join("; ")}\n\n${USAGE}`);
    return 2;
  }
  const w = toWindow(parsed.data);
  return withBulkDatabase(async (_pool, url) => {
    const client = createClient(url);
    try {
      if (!(await runExists(w.runId, client))) {
        out.err(`verity clusters: no run ${JSON.stringify(w.runId)}`);
        return 1;
      }
      if (key) {
        const sink: NodeJS.WritableStream = values.out ? fs.createWriteStream(values.out) : out.stdout;
        let lines = 0;
        for await (const line of clusterBacklog(w, key, client)) {
          lines++;
          if (!sink.write(line)) await once(sink, "drain");
        }
        if (values.out) await new Promise<void>((res) => (sink as fs.WriteStream).end(() => res()));
        out.err(`verity clusters: ${lines} lines${values.out ? ` written to ${values.out}` : ""}`);
        return 0;
      }
      const full = await loadFullReport(w, { phrasings: !values["no-phrasings"] }, client);
      if (values.json) out.out(JSON.stringify(reportToWire(w, full)));
      else for (const l of formatReport(full)) out.out(l);
      return 0;
    } finally {
      await client.$disconnect();
    }
  });
}
