// `verity demo --tickets N --steps S --k 4 --seed X [--variant hacking]`: generates a synthetic GRPO run and loads it
// through the ingest path (every rollout scored by the verifier), or writes it as NDJSON with --out.
import { flagSpec, type Io, parseFlags, stdio } from "@/lib/cli/command.ts";
import fs from "node:fs";
import { once } from "node:events";
import { z } from "zod";
import { VARIANTS } from "@/lib/demo/curve.ts";
import { describeDemoRun, demoRunValues } from "@/lib/demo/generate.ts";
import { describeRun } from "@/lib/demo/seed.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const USAGE = `usage: verity demo [--tickets N] [--steps S] [--k K] [--seed X] [--variant normal|hacking] [--run ID] [--out FILE|-]

Generates a GRPO run over the six demo ticket categories whose behaviour improves over training (missing evidence
43% -> 5%, unauthorized writes 28% -> 3%, success 8% -> 93%); --variant hacking lets hand-offs creep from 8% towards
41%. The same arguments always give the same data. Loads it into the database (scored by the verifier), or with
--out writes the NDJSON (cases, then rollouts) instead.`;

export const demoCliSchema = z.strictObject({
  tickets: z.coerce.number().int().min(1).max(100_000).default(60),
  steps: z.coerce.number().int().min(1).max(100_000).default(40),
  k: z.coerce.number().int().min(1).max(64).default(4),
  seed: z.string().min(1).default("7"),
  variant: z.enum(VARIANTS).default("normal"),
  run: z.string().min(1).max(200).optional(),
  out: z.string().min(1).optional(),
});

export async function run(argv: string[], out: Io = stdio): Promise<number> {
  const flags = parseFlags(
    "demo",
    USAGE,
    argv,
    flagSpec(["tickets", "steps", "k", "seed", "variant", "run", "out"]),
    out,
  );
  if ("exit" in flags) return flags.exit;
  const { values } = flags;
  const parsed = demoCliSchema.safeParse({
    tickets: values.tickets,
    steps: values.steps,
    k: values.k,
    seed: values.seed,
    variant: values.variant,
    run: values.run,
    out: values.out,
  });
  if (!parsed.success) {
    out.err(
      `verity demo: ${zodIssues(parsed.error)
        .map((i) => `--${i.path}: ${i.message}`)
        .join("; ")}\n\n${USAGE}`,
    );
    return 2;
  }
  const o = parsed.data;
  const spec = {
    runId: o.run ?? `demo-${o.variant}-${o.seed}`,
    tickets: o.tickets,
    steps: o.steps,
    k: o.k,
    seed: o.seed,
    variant: o.variant,
  };

  if (o.out) {
    const sink: NodeJS.WritableStream = o.out === "-" ? out.stdout : fs.createWriteStream(o.out);
    let n = 0;
    for (const v of demoRunValues(spec)) {
      n++;
      if (!sink.write(JSON.stringify(v) + "\n")) await once(sink, "drain");
    }
    if (o.out !== "-") await new Promise<void>((res) => (sink as fs.WriteStream).end(() => res()));
    out.err(`verity demo: ${n} lines (${o.tickets} cases, ${n - o.tickets} rollouts) for run ${spec.runId}`);
    return 0;
  }
  return withBulkDatabase(async (pool) => {
    const started = Date.now();
    await describeRun(pool, spec.runId, describeDemoRun(spec));
    const summary = await ingestValues(demoRunValues(spec), { pool, batchLines: 4000, after: afterWrite(pool) });
    out.err(
      `verity demo: run ${spec.runId}: ${summary.by_kind.rollout.accepted} rollouts stored, ${summary.scored} scored, ` +
        `${summary.unchanged} unchanged, ${summary.rejected} rejected in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    out.out(JSON.stringify(summary));
    return summary.ok && summary.rejected === 0 ? 0 : 1;
  });
}
