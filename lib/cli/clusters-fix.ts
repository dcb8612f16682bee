// `verity clusters fix --run R --cluster KEY (--handoff MODE | --require-write TOOL[:field=value,...])`: the bulk fix
// of a cluster's cases (docs/audit.md "Bulk fix from a cluster") — a dry run over every affected rollout with
// --dry-run, otherwise each case's next version and its re-score. Progress goes to stderr as the rollouts go by.
import { asUserId } from "@/lib/cli/client.ts";
import { flagSpec, type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import { reviseReasonSchema } from "@/lib/cases/schema.ts";
import { applyBulkFix, dryRunBulkFix, type BulkApply, type BulkDryRun } from "@/lib/clusters/bulk-fix.ts";
import { resolveBulkFixTarget } from "@/lib/clusters/bulk-fix-target.ts";
import { bulkFixInput, specChangeOf } from "@/lib/clusters/schema.ts";
import { fieldMessages } from "@/lib/result.ts";
import { describeSpecChange } from "@/lib/clusters/spec-change.ts";
import { createClient } from "@/lib/db/client.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";

const USAGE = `usage: verity clusters fix --run RUN --cluster KEY (--handoff MODE | --require-write TOOL[:FIELD=VALUE,...])
                          [--tickets T1,T2,...] [--from STEP] [--to STEP] [--threshold T]
                          [--dry-run] [--reason TEXT] [--as EMAIL] [--json]

Applies one spec change to the case of every ticket of the cluster KEY (as \`verity clusters\` names it) in the
run's window, or of the --tickets given (each must be one of the cluster's). --handoff sets the spec's hand-off
mode (not_allowed, allowed, required); --require-write adds a required write of a write tool, its arguments as
FIELD=VALUE pairs (a VALUE is JSON when it reads as JSON, else text: $order.id is a pointer into the case's
env_snapshot). --dry-run scores every affected rollout under the changed specs and stores nothing; otherwise each
case's next version is saved (reason --reason, author --as, answering the cluster) and the run's rollouts of those
tickets are re-scored. Progress goes to stderr; --json prints the result as one JSON line.

exit status: 0 done, 1 unknown run, ticket, tool or cluster member, or a ticket refused or without a case, 2 usage.`;

const num = (x: number | null) => (x === null ? "–" : x.toFixed(3));
const int = (x: number) => x.toLocaleString("en-US");

function dryRunLines(d: BulkDryRun): string[] {
  const t = d.totals;
  const lines = [
    `dry run (${d.change}): ${int(d.tickets.length)} tickets, ${int(t.rollouts)} rollouts scored, ${int(t.rewardChanged)} with another reward; mean reward ${num(d.meanBefore)} → ${num(d.meanAfter)}; reviews ${int(t.nowAgree)} now agree, ${int(t.nowDisagree)} now disagree`,
  ];
  for (const x of d.tickets)
    lines.push(
      `  ${x.ticketId}\t${int(x.rollouts)} rollouts\t${int(x.rewardChanged)} changed\tmean ${num(x.meanBefore)} → ${num(x.meanAfter)}`,
    );
  for (const r of d.refused)
    lines.push(
      `  refused ${r.ticketId}: ${r.issues.map((i) => `${i.path || "verifier_spec"}: ${i.message}`).join("; ")}`,
    );
  for (const m of d.missing) lines.push(`  no case ${m}`);
  for (const e of d.examples)
    lines.push(
      `  example ${e.runId} ${e.trajectoryId} step ${e.step}: reward ${num(e.before?.reward ?? null)} → ${num(e.after.reward)}; reasons +${e.reasons.added.join(",") || "—"} −${e.reasons.removed.join(",") || "—"}`,
    );
  return lines;
}

function applyLines(a: BulkApply): string[] {
  const created = a.versions.filter((v) => v.status === "created").length;
  return [
    `applied (${a.change}): ${int(created)} case versions saved, ${int(a.versions.length - created)} unchanged; re-scored ${int(a.rollouts)} rollouts, ${int(a.rewardChanged)} with another reward; defects fixed ${a.defectsFixed}, verified ${a.defectsVerified}`,
    ...a.refused.map(
      (r) => `  refused ${r.ticketId}: ${r.issues.map((i) => `${i.path || "verifier_spec"}: ${i.message}`).join("; ")}`,
    ),
    ...a.missing.map((m) => `  no case ${m}`),
  ];
}

/** Flag names of bulkFixInput's fields, for the error lines. */
const FLAG: Record<string, string> = {
  run: "--run",
  step_from: "--from",
  step_to: "--to",
  threshold: "--threshold",
  cluster: "--cluster",
  tickets: "--tickets",
  handoff: "--handoff",
  tool: "--require-write",
  fields: "--require-write",
};

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const flags = parseFlags(
    "clusters fix",
    USAGE,
    argv,
    flagSpec(
      ["run", "cluster", "from", "to", "threshold", "handoff", "require-write", "tickets", "reason", "as"],
      ["dry-run", "json"],
    ),
    io,
  );
  if ("exit" in flags) return flags.exit;
  const v = flags.values;
  const usage = (m: string) => {
    io.err(`verity clusters fix: ${m}\n\n${USAGE}`);
    return 2;
  };
  if ((v.handoff === undefined) === (v["require-write"] === undefined))
    return usage("give one change: --handoff MODE or --require-write TOOL[:FIELD=VALUE,...]");
  const rw = v["require-write"];
  const colon = rw?.indexOf(":") ?? -1;
  const parsed = bulkFixInput.safeParse({
    run: v.run ?? "",
    step_from: v.from,
    step_to: v.to,
    threshold: v.threshold,
    cluster: v.cluster ?? "",
    tickets: v.tickets,
    change: rw === undefined ? "handoff" : "require_write",
    handoff: v.handoff,
    tool: rw === undefined ? undefined : colon < 0 ? rw : rw.slice(0, colon),
    fields: rw === undefined || colon < 0 ? "" : rw.slice(colon + 1),
  });
  if (!parsed.success)
    return usage(
      fieldMessages(parsed.error)
        .map((m) => m.replace(/^(\w+):/, (_, f: string) => `${FLAG[f] ?? f}:`))
        .join("; "),
    );
  const dryRun = !!v["dry-run"];
  const reason = reviseReasonSchema.safeParse(v.reason ?? "");
  if (!dryRun && !reason.success) return usage(`--reason: ${reason.error.issues[0].message}`);
  const change = specChangeOf(parsed.data);
  return withBulkDatabase(async (pool, url) => {
    const client = createClient(url);
    try {
      const r = await resolveBulkFixTarget(parsed.data, client);
      if (!r.ok) {
        io.err(`verity clusters fix: ${FLAG[r.error.field] ?? r.error.field}: ${r.error.message}`);
        return 1;
      }
      const { target } = r;
      const what = dryRun ? "dry run" : "apply";
      const onProgress = (p: { ticketsDone: number; tickets: number; rollouts: number }) =>
        io.err(`${what}: ${int(p.rollouts)} rollouts (${int(p.ticketsDone)} of ${int(p.tickets)} tickets)`);
      io.err(
        `${what} of ${describeSpecChange(change)} on ${int(target.tickets.length)} tickets of ${target.clusterKey} (${int(target.members)} rollouts in the cluster) in ${target.window.runId}`,
      );
      if (dryRun) {
        const d = await dryRunBulkFix(pool, {
          tickets: target.tickets,
          change,
          runId: target.window.runId,
          onProgress,
        });
        if (v.json)
          io.out(JSON.stringify({ dry_run: true, run: target.window.runId, cluster: target.clusterKey, ...d }));
        else for (const l of dryRunLines(d)) io.out(l);
        return d.refused.length || d.missing.length ? 1 : 0;
      }
      const authorId = await asUserId(pool, v.as);
      if (authorId === undefined) {
        io.err(`verity clusters fix: --as: no user ${JSON.stringify(v.as)}`);
        return 1;
      }
      const a = await applyBulkFix(pool, client, {
        tickets: target.tickets,
        change,
        reason: reason.success ? reason.data : "",
        cluster: target.clusterKey,
        authorId,
        actor: { label: v.as ?? "cli" },
        runId: target.window.runId,
        onProgress,
      });
      if (v.json)
        io.out(JSON.stringify({ dry_run: false, run: target.window.runId, cluster: target.clusterKey, ...a }));
      else for (const l of applyLines(a)) io.out(l);
      return a.refused.length || a.missing.length ? 1 : 0;
    } finally {
      await client.$disconnect();
    }
  });
}
