// `verity export --run R [--from S --to S] [--guardrail CODE] [--search TEXT] [--format ndjson|parquet] [--out FILE]`: the run's
// current ledger, streamed (to stdout unless --out) — as NDJSON score records, each ticket's case first so the file
// re-ingests into an empty database, or as one Parquet file of flat rows (docs/formats.md "Parquet export").
import { flagSpec, type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import fs from "node:fs";
import { once } from "node:events";
import type pg from "pg";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import {
  entryFilterSchema,
  EXPORT_SEARCH_TIMEOUT_MS,
  exportFilterSchema,
  exportLedgerChunks,
  runExists,
  type EntryFilter,
} from "@/lib/ledger/export.ts";
import { exportLedgerParquet } from "@/lib/ledger/parquet-export.ts";
import { ROW_GROUP_ROWS } from "@/lib/ledger/parquet.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";
import { isStatementTimeout } from "@/lib/search/data.ts";

const USAGE = `usage: verity export --run RUN [--from STEP] [--to STEP] [--guardrail CODE] [--search TEXT]
                     [--format ndjson|parquet] [--no-cases] [--row-group ROWS] [--out FILE]

Writes the run's current ledger entries, ordered by step. --search keeps those whose rollout matches a search of
its reply, tool calls and ticket (docs/search.md: words, "a phrase", -word, reply: tool: arg: result: ticket:). --format ndjson (the default): NDJSON score records
(formats.md §3), each ticket's case before its first record, so the file can be ingested into an empty database
(--no-cases leaves them out). --format parquet: one Parquet file, one flat row per entry (formats.md "Parquet
export"), written row group by row group (--row-group: rows per group, default ${ROW_GROUP_ROWS.toLocaleString("en-US")}; memory
grows with it); it needs --out, or stdout sent to a file or a pipe.`;

type Sink = { write: (chunk: string | Uint8Array) => Promise<void>; end: () => Promise<void> };

function sinkOf(stream: NodeJS.WritableStream, own: boolean): Sink {
  return {
    write: async (chunk) => {
      if (!stream.write(chunk)) await once(stream, "drain");
    },
    end: () => (own ? new Promise<void>((res) => (stream as fs.WriteStream).end(() => res())) : Promise.resolve()),
  };
}

export async function run(argv: string[], out: Io = stdio): Promise<number> {
  const flags = parseFlags(
    "export",
    USAGE,
    argv,
    flagSpec(["run", "from", "to", "guardrail", "search", "format", "out", "row-group"], ["no-cases"]),
    out,
  );
  if ("exit" in flags) return flags.exit;
  const { values } = flags;
  const format = values.format ?? "ndjson";
  const problems: string[] = [];
  if (format !== "ndjson" && format !== "parquet") problems.push(`--format: must be ndjson or parquet, not ${format}`);
  if (format === "parquet" && values["no-cases"]) problems.push("--no-cases: applies to --format ndjson only");
  const rowGroup = values["row-group"] === undefined ? ROW_GROUP_ROWS : Number(values["row-group"]);
  if (values["row-group"] !== undefined && format !== "parquet")
    problems.push("--row-group: applies to --format parquet only");
  else if (!(Number.isInteger(rowGroup) && rowGroup >= 1_000 && rowGroup <= 1_000_000))
    problems.push(`--row-group: must be a whole number from 1,000 to 1,000,000, not ${values["row-group"]}`);
  if (format === "parquet" && !values.out && (out.stdout as { isTTY?: boolean }).isTTY)
    problems.push("--out: a Parquet file is binary; give --out FILE or send stdout to a file");
  const fields = { run: values.run, from: values.from, to: values.to, guardrail: values.guardrail, q: values.search };
  const parsed =
    format === "parquet"
      ? entryFilterSchema.safeParse(fields)
      : exportFilterSchema.safeParse({ ...fields, cases: !values["no-cases"] });
  if (!parsed.success)
    problems.push(
      ...zodIssues(parsed.error).map((i) => (i.path ? `--${i.path === "q" ? "search" : i.path}: ` : "") + i.message),
    );
  if (problems.length || !parsed.success) {
    out.err(`verity export: ${problems.join("; ")}\n\n${USAGE}`);
    return 2;
  }
  const filter = parsed.data;
  return withBulkDatabase((pool) =>
    exportTo(pool, filter, values.out, format, rowGroup, out).catch((err: unknown) => {
      if (!isStatementTimeout(err)) throw err;
      const s = EXPORT_SEARCH_TIMEOUT_MS / 1000;
      out.err(`verity export: --search: the search took longer than ${s} s for one batch and was stopped; narrow it`);
      return 1;
    }),
  );
}

/** The export itself, to --out or stdout; 1 for an unknown run. */
async function exportTo(
  pool: pg.Pool,
  filter: EntryFilter,
  file: string | undefined,
  format: string,
  rowGroup: number,
  out: Io,
): Promise<number> {
  if (!(await runExists(pool, filter.run))) {
    out.err(`verity export: no run ${JSON.stringify(filter.run)}`);
    return 1;
  }
  const sink = sinkOf(file ? fs.createWriteStream(file) : out.stdout, Boolean(file));
  const where = file ? ` written to ${file}` : "";
  if (format === "parquet") {
    const bytes = await writeParquet(pool, filter, sink, file, rowGroup);
    out.err(`verity export: ${bytes.toLocaleString("en-US")} bytes of Parquet${where}`);
    return 0;
  }
  let lines = 0;
  for await (const chunk of exportLedgerChunks(pool, { cases: true, ...filter })) {
    lines += chunk.records + chunk.cases;
    await sink.write(chunk.text);
  }
  await sink.end();
  out.err(`verity export: ${lines} lines${where}`);
  return 0;
}

/** Writes the Parquet file; a failure part-way removes the partial file (it has no footer, so it is no file). */
async function writeParquet(
  pool: pg.Pool,
  filter: EntryFilter,
  sink: Sink,
  file: string | undefined,
  rowGroupRows: number,
): Promise<number> {
  let bytes = 0;
  try {
    for await (const chunk of exportLedgerParquet(pool, filter, { rowGroupRows })) {
      bytes += chunk.byteLength;
      await sink.write(chunk);
    }
    await sink.end();
  } catch (err) {
    await sink.end().catch(() => undefined);
    if (file) fs.rmSync(file, { force: true });
    throw err;
  }
  return bytes;
}
