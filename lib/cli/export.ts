// `verity export --run R [--from S --to S] [--guardrail CODE] [--out FILE]`: the run's current ledger as NDJSON score
// records, streamed (to stdout unless --out), each ticket's case first so the file re-ingests into an empty database.
import { type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import fs from "node:fs";
import { once } from "node:events";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { exportFilterSchema, exportLedger, runExists } from "@/lib/ledger/export.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";

const USAGE = `usage: verity export --run RUN [--from STEP] [--to STEP] [--guardrail CODE] [--no-cases] [--out FILE]

Writes the run's current ledger entries as NDJSON score records (formats.md §3), ordered by step. Each ticket's
case comes before its first record, so the file can be ingested into an empty database (--no-cases leaves them out).`;

export async function run(argv: string[], out: Io = stdio): Promise<number> {
  const flags = parseFlags(
    "export",
    USAGE,
    argv,
    {
      run: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      guardrail: { type: "string" },
      out: { type: "string" },
      "no-cases": { type: "boolean" },
    },
    out,
  );
  if ("exit" in flags) return flags.exit;
  const { values } = flags;
  const parsed = exportFilterSchema.safeParse({
    run: values.run,
    from: values.from,
    to: values.to,
    guardrail: values.guardrail,
    cases: !values["no-cases"],
  });
  if (!parsed.success) {
    out.err(
      `verity export: ${zodIssues(parsed.error)
        .map((i) => (i.path ? `--${i.path}: ` : "") + i.message)
        .join("; ")}\n\n${USAGE}`,
    );
    return 2;
  }
  const filter = parsed.data;
  return withBulkDatabase(async (pool) => {
    if (!(await runExists(pool, filter.run))) {
      out.err(`verity export: no run ${JSON.stringify(filter.run)}`);
      return 1;
    }
    const sink: NodeJS.WritableStream = values.out ? fs.createWriteStream(values.out) : out.stdout;
    let lines = 0;
    for await (const line of exportLedger(pool, filter)) {
      lines++;
      if (!sink.write(line)) await once(sink, "drain");
    }
    if (values.out) await new Promise<void>((res) => (sink as fs.WriteStream).end(() => res()));
    out.err(`verity export: ${lines} lines${values.out ? ` written to ${values.out}` : ""}`);
    return 0;
  });
}
