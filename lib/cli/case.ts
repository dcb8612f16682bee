// `verity case revise TICKET FILE --reason "…"`: stores the next version of a case and re-scores the ticket's
// rollouts under it (or, with --dry-run, prints what that would change and stores nothing); `verity case history
// TICKET` lists its versions. docs/cases.md.
import fs from "node:fs";
import { asUserId } from "@/lib/cli/client.ts";
import { flagSpec, parseSubcommand, type Io, stdio } from "@/lib/cli/command.ts";
import { listCaseVersions } from "@/lib/cases/data.ts";
import { addToTotals, dryRunCase, type DryRunTotals } from "@/lib/cases/dry-run.ts";
import { applyCaseFix } from "@/lib/cases/apply-fix.ts";
import { createClient } from "@/lib/db/client.ts";
import { parseReviseFile, reviseReasonSchema } from "@/lib/cases/schema.ts";
import type { CaseAnswers } from "@/lib/ledger/store/case-version.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const USAGE = `usage: verity case <subcommand> [options]

subcommands:
  revise TICKET FILE --reason TEXT [--run RUN] [--dry-run] [--adjudication ID]... [--cluster KEY] [--as EMAIL]
                       FILE is the revised case (JSON, "kind": "case"), or just its verifier_spec (bare, or as
                       {"verifier_spec": …}); what it leaves out stays as the current version has it. Stores it as
                       the case's next version (author --as, the adjudications and cluster it answers) and re-scores
                       the ticket's rollouts (of RUN, or of every run) under it: new ledger entries supersede the
                       old ones. --dry-run prints each rollout's change as NDJSON and stores nothing. The same case
                       again stores nothing. The last stdout line is the JSON summary.
  history TICKET [--json]
                       the case's versions, newest first`;

const MAX_FILE_BYTES = 4 * 1024 * 1024;

function readJsonFile(file: string): { ok: true; json: unknown } | { ok: false; message: string } {
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES) return { ok: false, message: `${file} is larger than 4 MB` };
    return { ok: true, json: JSON.parse(fs.readFileSync(file, "utf8")) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      message: `cannot read ${file}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`,
    };
  }
}

const issuesText = (issues: { path: string; message: string }[]) =>
  issues.map((i) => (i.path ? `${i.path}: ` : "") + i.message).join("; ");

type ReviseFlags = {
  reason?: string;
  run?: string;
  "dry-run"?: boolean;
  adjudication?: string[];
  cluster?: string;
  as?: string;
};

async function revise(positionals: string[], values: ReviseFlags, io: Io): Promise<number> {
  if (positionals.length !== 2) {
    io.err(`verity case revise: give the ticket and the file\n\n${USAGE}`);
    return 2;
  }
  const [ticketId, file] = positionals;
  const dryRun = !!values["dry-run"];
  const reason = reviseReasonSchema.safeParse(values.reason ?? "");
  if (!dryRun && !reason.success) {
    io.err(`verity case revise: --reason: ${reason.error.issues[0].message}`);
    return 2;
  }
  const answers: CaseAnswers = {};
  for (const a of values.adjudication ?? []) {
    if (!/^[1-9][0-9]{0,18}$/.test(a)) {
      io.err(`verity case revise: --adjudication: expected an adjudication id (got ${JSON.stringify(a)})`);
      return 2;
    }
    (answers.adjudicationIds ??= []).push(BigInt(a));
  }
  if (values.cluster) answers.cluster = values.cluster;
  const read = readJsonFile(file);
  if (!read.ok) {
    io.err(`verity case revise: ${read.message}`);
    return 1;
  }
  const draft = parseReviseFile(read.json);
  if (!draft.ok) {
    io.err(`verity case revise: invalid ${file}: ${issuesText(draft.issues)}`);
    return 1;
  }
  return withBulkDatabase(async (pool, url) => {
    if (dryRun) {
      const r = await dryRunCase(pool, { ticketId, draft: draft.draft, runId: values.run });
      if (!r) {
        io.err(`verity case revise: no case ${JSON.stringify(ticketId)}`);
        return 1;
      }
      if (!r.ok) {
        io.err(`verity case revise: invalid ${file}: ${issuesText(r.issues)}`);
        return 1;
      }
      const totals: DryRunTotals = { rollouts: 0, rewardChanged: 0, nowAgree: 0, nowDisagree: 0 };
      for await (const d of r.diffs) {
        addToTotals(totals, d);
        if (d.rewardChanged || d.guardrails.added.length || d.guardrails.removed.length || d.reviews.length)
          io.out(JSON.stringify(d));
      }
      io.out(JSON.stringify({ ticket_id: ticketId, dry_run: true, ...totals }));
      return 0;
    }
    const authorId = await asUserId(pool, values.as);
    if (authorId === undefined) {
      io.err(`verity case revise: --as: no user ${JSON.stringify(values.as)}`);
      return 2;
    }
    const client = createClient(url);
    const r = await applyCaseFix(
      pool,
      {
        ticketId,
        draft: draft.draft,
        reason: reason.success ? reason.data : "",
        authorId,
        actor: authorId ? { userId: authorId, email: values.as! } : { label: "cli" },
        answers,
        runId: values.run,
        after: afterWrite(pool),
      },
      client,
    ).finally(() => client.$disconnect());
    if (!r.ok) {
      io.err(
        `verity case revise: ${r.code === "not_found" ? issuesText(r.issues) : `invalid ${file}: ${issuesText(r.issues)}`}`,
      );
      return 1;
    }
    const s = r.rescore;
    io.out(
      r.status === "created"
        ? `stored ${ticketId} v${r.version} (${r.contentHash})`
        : `unchanged: ${ticketId} v${r.version} is already this case`,
    );
    io.out(
      `re-scored ${s.rollouts} rollouts: ${s.rescored} superseded (${s.reward_changed} with another reward), ${s.unchanged} unchanged, ${s.crossed_up} crossed 0.9 up, ${s.crossed_down} down`,
    );
    for (const d of r.defects) io.out(`defect #${d.id} (${d.runId}) ${d.status} by v${r.version}`);
    if (r.verifiedEarlier) io.out(`${r.verifiedEarlier} defects fixed earlier verified (their items now agree)`);
    io.out(
      JSON.stringify({
        ticket_id: ticketId,
        status: r.status,
        version: r.version,
        content_hash: r.contentHash,
        rescore: s,
        defects: r.defects.map((d) => ({ run_id: d.runId, id: d.id.toString(), status: d.status })),
        defects_verified_earlier: r.verifiedEarlier,
      }),
    );
    return 0;
  });
}

async function history(positionals: string[], json: boolean, io: Io): Promise<number> {
  if (positionals.length !== 1) {
    io.err(`verity case history: give the ticket\n\n${USAGE}`);
    return 2;
  }
  return withBulkDatabase(async (pool) => {
    const versions = await listCaseVersions(pool, positionals[0]);
    if (versions.length === 0) {
      io.err(`verity case history: no case ${JSON.stringify(positionals[0])}`);
      return 1;
    }
    for (const v of versions) {
      const row = {
        version: v.version,
        content_hash: v.contentHash,
        reason: v.reason,
        author: v.author,
        answers_adjudication_ids: v.answersAdjudicationIds,
        answers_cluster: v.answersCluster,
        created_at: v.createdAt.toISOString(),
      };
      io.out(
        json
          ? JSON.stringify(row)
          : [`v${v.version}`, v.createdAt.toISOString(), v.author ?? "-", v.reason || "(first version)"].join("\t"),
      );
    }
    return 0;
  });
}

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const args = parseSubcommand(
    "case",
    USAGE,
    argv,
    {
      ...flagSpec(["reason", "run", "cluster", "as"], ["dry-run", "json"]),
      adjudication: { type: "string", multiple: true },
    },
    io,
  );
  if ("exit" in args) return args.exit;
  const { sub, values, positionals } = args;
  if (sub === "revise") return revise(positionals, values, io);
  if (sub === "history") return history(positionals, !!values.json, io);
  io.err(`verity case: unknown subcommand "${sub}"\n\n${USAGE}`);
  return 2;
}
