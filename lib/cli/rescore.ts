// `verity rescore --run R [--config FILE]`: scores every rollout of the run again under another verifier config,
// appending superseding ledger entries, and prints what changed. The last stdout line is the JSON summary.
import { type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import fs from "node:fs";
import { createClient } from "@/lib/db/client.ts";
import { verifyDefects } from "@/lib/defects/mutations.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { formatRescoreReport } from "@/lib/ledger/rescore-report.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { DEFAULT_CONFIG, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const USAGE = `usage: verity rescore --run RUN [--config FILE]

Scores every rollout of RUN again under the verifier config in FILE (JSON; a partial config is merged onto the
default, e.g. {"guardrails": {"tool_missing": {"on": true, "cap": 0.55}}}; without --config, the default config).
Changed scores become new ledger entries that supersede the old ones; entries from outside (source external)
are kept. Prints how many rollouts crossed the 0.9 success line and how the deciding guardrails moved.`;

export function loadConfigFile(
  file: string | undefined,
): { ok: true; config: VerifierConfig } | { ok: false; message: string } {
  if (!file) return { ok: true, config: DEFAULT_CONFIG };
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    return { ok: false, message: `cannot read the config ${file}: ${(err as Error).message}` };
  }
  const r = parseVerifierConfig(json);
  if (!r.ok)
    return {
      ok: false,
      message: `invalid config ${file}: ${r.issues.map((i) => (i.path ? `${i.path}: ` : "") + i.message).join("; ")}`,
    };
  return r;
}

export async function run(argv: string[], out: Io = stdio): Promise<number> {
  const flags = parseFlags("rescore", USAGE, argv, { run: { type: "string" }, config: { type: "string" } }, out);
  if ("exit" in flags) return flags.exit;
  const { values } = flags;
  if (!values.run) {
    out.err(`verity rescore: --run is required\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfigFile(values.config);
  if (!config.ok) {
    out.err(`verity rescore: ${config.message}`);
    return 2;
  }
  const runId = values.run;
  return withBulkDatabase(async (pool, url) => {
    const exists = await pool.query("select 1 from runs where id = $1", [runId]);
    if (!exists.rowCount) {
      out.err(`verity rescore: no run ${JSON.stringify(runId)}`);
      return 1;
    }
    const started = Date.now();
    const summary = await rescoreRun(pool, { runId, config: config.config, after: afterWrite(pool) });
    for (const line of formatRescoreReport(summary)) out.out(line);
    // Fixed defects whose items now agree with their reviews are verified (lib/defects/mutations.ts).
    const client = createClient(url);
    try {
      const verified = await verifyDefects({ runId }, client);
      if (verified.length)
        out.out(`defects verified: ${verified.map((d) => `#${d.id}`).join(", ")} (their items now agree)`);
    } finally {
      await client.$disconnect();
    }
    out.err(`verity rescore: ${summary.rollouts} rollouts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    out.out(JSON.stringify(summary));
    return 0;
  });
}
