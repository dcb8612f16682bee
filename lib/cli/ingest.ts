// `verity ingest FILE|-`: cases, rollouts and score records (NDJSON, mixed) straight into the database, through
// the same code path as POST /api/v1/ingest. The last line on stdout is the same JSON summary the API returns.
import fs from "node:fs";
import { parseArgs } from "node:util";
import { ingestCounts, recordLoad } from "@/lib/ingest/activity.ts";
import { env } from "@/lib/env.ts";
import { isGzipFile, openInputFile } from "@/lib/ingest/content-encoding.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { ingestStream } from "@/lib/ingest/ingest.ts";
import { formatProgress, ProgressLine } from "@/lib/ingest/progress.ts";
import { ingestCliSchema, type IngestCliOptions } from "@/lib/ingest/schema.ts";
import { flagIssueMessage } from "@/lib/cli/command.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const USAGE = `usage: verity ingest FILE|- [options]

Loads NDJSON lines — cases, rollouts and score records, mixed — into the ledger. Rollouts whose case is known are
scored by the verifier on the way in; score records are stored as given. Re-sending lines is a no-op; the same
trajectory (or ticket) with different content is rejected as a conflict.

options:
  --format ndjson|platform   platform = the reward-platform payload (formats.md §4), one rollout + external score a line
  --run RUN --step N         identity for platform payloads that do not carry run_id / step
  --rejects FILE             write every rejected line (with its error) to FILE as NDJSON
  --batch N                  lines per transaction (default 2000)
  --strict                   exit 1 when any line was rejected
  --no-progress              no progress line on the terminal

A line past a limit (nesting depth 64, ids of at most 200 characters without control characters or <>"'\`\\) or
refused by the database for its data is rejected alone, with its path and reason; the other lines are stored.

exit status: 0 done, 1 done with rejected lines under --strict, 2 usage, 3 stopped early (failed_at: the database
unavailable, the input unreadable, or a server fault): the summary's last_committed_line says how far it got;
running the same file again completes it.`;

type Io = { out: (s: string) => void; err: (s: string) => void; stderr: NodeJS.WriteStream };
const io: Io = {
  out: (s) => process.stdout.write(s + "\n"),
  err: (s) => process.stderr.write(s + "\n"),
  stderr: process.stderr,
};

export function parseIngestArgs(
  argv: string[],
): { ok: true; opts: IngestCliOptions } | { ok: false; message: string; help?: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: "string" },
        run: { type: "string" },
        step: { type: "string" },
        rejects: { type: "string" },
        batch: { type: "string" },
        strict: { type: "boolean" },
        "no-progress": { type: "boolean" },
        progress: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return { ok: false, message: "", help: true };
  if (positionals.length > 1) return { ok: false, message: `one input at a time (got ${positionals.join(", ")})` };
  const r = ingestCliSchema.safeParse({
    file: positionals[0] ?? "",
    format: values.format,
    run: values.run,
    step: values.step,
    rejects: values.rejects,
    batch: values.batch,
    strict: values.strict ?? false,
    progress: values["no-progress"] ? "off" : values.progress ? "on" : "auto",
  });
  if (!r.success) {
    return {
      ok: false,
      message: flagIssueMessage(zodIssues(r.error), "file"),
    };
  }
  return { ok: true, opts: r.data };
}

export async function run(argv: string[], out: Io = io): Promise<number> {
  const args = parseIngestArgs(argv);
  if (!args.ok) {
    if (args.help) {
      out.out(USAGE);
      return 0;
    }
    out.err(`verity ingest: ${args.message}\n\n${USAGE}`);
    return 2;
  }
  const opts = args.opts;
  const fromStdin = opts.file === "-";
  let totalBytes: number | null = null;
  if (!fromStdin) {
    try {
      totalBytes = fs.statSync(opts.file).size;
    } catch {
      out.err(`verity ingest: cannot read ${opts.file}`);
      return 2;
    }
  }
  const gzip = !fromStdin && isGzipFile(opts.file);
  const rejects = opts.rejects ? fs.createWriteStream(opts.rejects) : null;
  const showProgress = opts.progress === "on" || (opts.progress === "auto" && !!out.stderr.isTTY);
  const bar = showProgress ? new ProgressLine(out.stderr) : null;
  let started = Date.now();

  const summary = await withBulkDatabase(async (pool) => {
    started = Date.now();
    // A gzip file is inflated as it streams, up to the cap on inflated bytes (a bomb stops there).
    const source = fromStdin ? process.stdin : openInputFile(opts.file, env().VERITY_MAX_INFLATED_BYTES);
    const loaded = await ingestStream(source, {
      pool,
      format: opts.format,
      defaults: { run: opts.run, step: opts.step },
      batchLines: opts.batch,
      // The first evaluation loads the alarm rules' database client (about a second of CPU and 90 MB in a fresh
      // process); an ingest under a minute is evaluated once, when it ends, a longer one also every minute.
      after: afterWrite(pool, { intervalMs: 60_000 }),
      onProgress: (p) =>
        bar?.update(
          formatProgress({
            lines: p.committedLine,
            bytes: p.bytes,
            totalBytes: gzip ? null : totalBytes,
            elapsedMs: Date.now() - started,
            rejected: p.rejected,
          }),
        ),
      onReject: rejects
        ? async (r) => {
            if (!rejects.write(JSON.stringify(r) + "\n"))
              await new Promise<void>((res) => rejects.once("drain", () => res()));
          }
        : undefined,
    });
    await recordLoad(pool, {
      actor: { label: "cli" },
      action: "ingest.cli",
      run: opts.run,
      stoppedAt: loaded.failed_at,
      details: { file: opts.file, ...ingestCounts(loaded) },
    });
    return loaded;
  });
  bar?.done();
  if (rejects) await new Promise<void>((res) => rejects.end(() => res()));

  const secs = (Date.now() - started) / 1000;
  out.err(
    `verity ingest: ${summary.accepted} accepted, ${summary.unchanged} unchanged, ${summary.rejected} rejected` +
      ` of ${summary.lines} lines in ${secs.toFixed(1)} s (${Math.round(summary.lines / Math.max(secs, 1e-3))} lines/s)` +
      (summary.scored ? `; the verifier scored ${summary.scored} rollouts` : "") +
      (summary.unscored ? `; ${summary.unscored} rollouts wait for their case (then: verity rescore --run …)` : "") +
      (summary.rejected && opts.rejects ? `; rejected lines are in ${opts.rejects}` : ""),
  );
  if (!summary.ok) out.err(`verity ingest: ${summary.error}`);
  out.out(JSON.stringify(summary));
  if (!summary.ok) return 3;
  return opts.strict && summary.rejected > 0 ? 1 : 0;
}
