// `verity ingest FILE|-`: cases, rollouts and score records (NDJSON, mixed) straight into the database, through
// the same code path as POST /api/v1/ingest. The last line on stdout is the same JSON summary the API returns.
import { ingestCounts, recordLoad } from "@/lib/ingest/activity.ts";
import { ingestStream } from "@/lib/ingest/ingest.ts";
import { ingestCliSchema, type IngestCliOptions } from "@/lib/ingest/schema.ts";
import { flagSpec, argsExit, parseFileArgs, progressFlags, progressOf, type FileArgs } from "@/lib/cli/command.ts";
import { inputSize, loadExit, loadFile } from "@/lib/cli/file-load.ts";
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

export function parseIngestArgs(argv: string[]): FileArgs<IngestCliOptions> {
  return parseFileArgs(
    argv,
    {
      ...flagSpec(["format", "run", "step", "rejects", "batch"], ["strict"]),
      ...progressFlags,
    },
    {
      one: "input",
      positional: "file",
      schema: ingestCliSchema,
      input: (values, file) => ({
        file,
        format: values.format,
        run: values.run,
        step: values.step,
        rejects: values.rejects,
        batch: values.batch,
        strict: values.strict ?? false,
        progress: progressOf(values),
      }),
    },
  );
}

export async function run(argv: string[], out: Io = io): Promise<number> {
  const args = parseIngestArgs(argv);
  if (!args.ok) return argsExit(args, "ingest", USAGE, out)!;
  const opts = args.opts;
  const input = inputSize(opts.file, false);
  if (!input.readable) {
    out.err(`verity ingest: cannot read ${opts.file}`);
    return 2;
  }
  const { summary, secs } = await loadFile(opts, input.bytes, out.stderr, async (pool, { source, hooks }) => {
    const loaded = await ingestStream(source, {
      pool,
      format: opts.format,
      defaults: { run: opts.run, step: opts.step },
      batchLines: opts.batch,
      // The first evaluation loads the alarm rules' database client (about a second of CPU and 90 MB in a fresh
      // process); an ingest under a minute is evaluated once, when it ends, a longer one also every minute.
      after: afterWrite(pool, { intervalMs: 60_000 }),
      ...hooks,
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
  out.err(
    `verity ingest: ${summary.accepted} accepted, ${summary.unchanged} unchanged, ${summary.rejected} rejected` +
      ` of ${summary.lines} lines in ${secs.toFixed(1)} s (${Math.round(summary.lines / Math.max(secs, 1e-3))} lines/s)` +
      (summary.scored ? `; the verifier scored ${summary.scored} rollouts` : "") +
      (summary.unscored ? `; ${summary.unscored} rollouts wait for their case (then: verity rescore --run …)` : "") +
      (summary.rejected && opts.rejects ? `; rejected lines are in ${opts.rejects}` : ""),
  );
  return loadExit("ingest", summary, opts.strict, out);
}
