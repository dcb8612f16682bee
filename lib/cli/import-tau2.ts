// `verity import tau2 RESULTS.json --db DB.json [--run R]`: a tau2-bench results file into the ledger
// (lib/import/tau2.ts; the mapping is in docs/import.md). The last line on stdout is the JSON summary.
import fs from "node:fs";
import { flagSpec, argsExit, parseFileArgs, stdio, type FileArgs, type Io } from "@/lib/cli/command.ts";
import { loadExit } from "@/lib/cli/file-load.ts";
import { tau2ImportCliSchema, type Tau2ImportCliOptions } from "@/lib/import/schema.ts";
import { defaultTau2Run, importTau2, readTau2Db } from "@/lib/import/tau2.ts";
import { recordLoad } from "@/lib/ingest/activity.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const USAGE = `usage: verity import tau2 RESULTS.json --db DB.json [--run RUN] [--step N] [--strict]

Imports a tau2-bench results file: each task becomes a case (ticket from the user scenario, env snapshot from the
entities of DB.json that the task names, verifier spec from its evaluation criteria), each simulation a rollout of
its task's case, scored by the verifier on the way in, with tau2-bench's reward as its trained_reward. The mapping,
and where Verity's verdict and tau2-bench's reward differ, are in docs/import.md.

options:
  --db DB.json     the domain's database (tau2-bench: data/tau2/domains/<domain>/db.json); required
  --run RUN        the run (default: the results file's name without its extension)
  --step N         the training step of every rollout (default 0)
  --batch N        lines per transaction (default 2000)
  --strict         exit 1 when any task or simulation was rejected

A task or simulation that cannot be imported is rejected alone, with its JSON path in the file and the reason;
the others are imported. Importing the same file again changes nothing.

exit status: 0 done, 1 done with rejects under --strict, 2 usage, 3 stopped early (malformed JSON: its line,
column and path; the database unavailable): what was read before is imported, and running it again completes it.`;

export function parseImportTau2Args(argv: string[]): FileArgs<Tau2ImportCliOptions> {
  return parseFileArgs(argv, flagSpec(["db", "run", "step", "batch"], ["strict"]), {
    one: "results file",
    positional: "results",
    schema: tau2ImportCliSchema,
    input: (values, results) => ({
      results,
      db: values.db,
      run: values.run,
      step: values.step,
      batch: values.batch,
      strict: values.strict ?? false,
    }),
  });
}

export async function run(argv: string[], io: Io = stdio): Promise<number> {
  const args = parseImportTau2Args(argv);
  if (!args.ok) return argsExit(args, "import tau2", USAGE, io)!;
  const opts = args.opts;
  try {
    fs.accessSync(opts.results, fs.constants.R_OK);
  } catch {
    io.err(`verity import tau2: cannot read ${opts.results}`);
    return 2;
  }
  const db = readTau2Db(opts.db);
  if (!db.ok) {
    io.err(`verity import tau2: ${db.message}`);
    return 2;
  }
  const runId = opts.run ?? defaultTau2Run(opts.results);
  const started = Date.now();
  const summary = await withBulkDatabase(async (pool) => {
    const loaded = await importTau2({
      pool,
      results: opts.results,
      db: db.db,
      run: runId,
      step: opts.step,
      batchLines: opts.batch,
      after: afterWrite(pool),
    });
    await recordLoad(pool, {
      actor: { label: "cli" },
      action: "import.tau2",
      run: runId,
      details: {
        file: opts.results,
        ok: loaded.ok,
        tasks: loaded.tasks,
        simulations: loaded.simulations,
        cases: loaded.cases.accepted,
        rollouts: loaded.rollouts.accepted,
        unchanged: loaded.cases.unchanged + loaded.rollouts.unchanged,
        rejected: loaded.rejected,
        scored: loaded.scored,
      },
    });
    return loaded;
  });
  const secs = (Date.now() - started) / 1000;
  const counts = (c: { accepted: number; unchanged: number; rejected: number }) =>
    `${c.accepted} accepted, ${c.unchanged} unchanged, ${c.rejected} rejected`;
  io.err(
    `verity import tau2: run ${runId}: ${summary.tasks} tasks (cases: ${counts(summary.cases)}), ` +
      `${summary.simulations} simulations (rollouts: ${counts(summary.rollouts)}); the verifier scored ` +
      `${summary.scored} in ${secs.toFixed(1)} s`,
  );
  for (const r of summary.rejects.slice(0, 20)) io.err(`  ${r.path}: ${r.message}`);
  if (summary.rejects.length > 20) io.err(`  … ${summary.rejected - 20} more in the summary`);
  return loadExit("import tau2", summary, opts.strict, io);
}
