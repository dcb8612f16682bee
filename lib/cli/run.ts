// `verity run archive RUN --out FILE`: exports the run's current ledger entries and rollouts to FILE as NDJSON, then
// detaches and drops its partitions (lib/runs/archive.ts). Refuses, dropping nothing, when the export did not
// complete or the run changed under it.
import { type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import fs from "node:fs";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { ArchiveRefused, archiveRun } from "@/lib/runs/archive.ts";

const USAGE = `usage: verity run archive RUN --out FILE

Writes the run's current ledger entries (each ticket's case first) and then its rollouts to FILE as NDJSON, and once
the file is complete on disk drops the run: its partitions of the ledger, rollouts and rollups, its trajectory
lookup, monitor and cluster-triage rows, and the run itself. FILE must not exist. A run with shadow-audit batches
is not archived.`;

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const [sub, runId, ...rest] = argv;
  if (sub === "--help" || sub === "-h") {
    io.out(USAGE);
    return 0;
  }
  if (sub !== "archive") {
    io.err(`verity run: ${sub ? `unknown subcommand "${sub}"` : "missing subcommand"}\n\n${USAGE}`);
    return 2;
  }
  if (!runId || runId.startsWith("-")) {
    if (runId === "--help" || runId === "-h") {
      io.out(USAGE);
      return 0;
    }
    io.err(`verity run archive: missing RUN\n\n${USAGE}`);
    return 2;
  }
  const flags = parseFlags("run archive", USAGE, rest, { out: { type: "string" } }, io);
  if ("exit" in flags) return flags.exit;
  const out = flags.values.out;
  if (!out) {
    io.err(`verity run archive: --out FILE is required\n\n${USAGE}`);
    return 2;
  }
  if (fs.existsSync(out)) {
    io.err(`verity run archive: --out: ${out} already exists; nothing was archived`);
    return 1;
  }
  return withBulkDatabase(async (pool) => {
    try {
      const s = await archiveRun(pool, runId, out);
      io.out(JSON.stringify(s));
      io.err(
        `verity run archive: ${s.entries} entries, ${s.rollouts} rollouts and ${s.cases} cases written to ${out} (${s.bytes} bytes, ${s.exportMs} ms); run ${JSON.stringify(runId)} dropped in ${s.dropMs} ms`,
      );
      return 0;
    } catch (err) {
      if (err instanceof ArchiveRefused) {
        io.err(`verity run archive: ${err.message}`);
        return 1;
      }
      throw err;
    }
  });
}
