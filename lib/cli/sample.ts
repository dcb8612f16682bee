// `verity sample`: draw a shadow-audit batch (or, with --dry-run, only show what would be drawn) from the command
// line. The same schema, sampler and writes as the console's batch form.
import { parseArgs } from "node:util";
import { previewBatch, type BatchPreview } from "@/lib/audit/data.ts";
import { createBatch, resolveParams } from "@/lib/audit/mutations.ts";
import { loadPlanEvidence, planForBatch, type BatchPlan } from "@/lib/audit/plan.ts";
import { PLAN_HALF_WIDTHS } from "@/lib/stats/audit-plan.ts";
import { batchParamsSchema, type ResolvedBatchParams } from "@/lib/audit/schema.ts";
import { createClient } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { previewPairBatch, type PairBatchPreview } from "@/lib/audit/pair-data.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { DEFAULT_DELTA, DEFAULT_NEAR_TIE_RATE } from "@/lib/audit/pair-sampler.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { flagSpec, type Io as CommandIo, stdio } from "@/lib/cli/command.ts";

const USAGE = `usage: verity sample --run RUN --from STEP --to STEP [options]

Samples tickets of a run's step window for blind human shadow review: a ticket is in when a hash of (salt, ticket id)
falls under the rate, so the sample is reproducible and independent of arrival order. With --pairwise, samples GRPO
groups the same way and one pair of rollouts in each, for blind pairwise review (which of the two is better).

options:
  --rate R               fraction of tickets to sample (default 0.01)
  --salt X               salt of the hash (default: random, printed; the same salt draws the same sample)
  --pick one|all         review one rollout per sampled ticket (chosen by hash) or all of them (default one)
  --min-per-stratum N    stratify by deciding guardrail: top up every stratum to at least N tickets
  --overlap R            fraction of items reviewed by two annotators (default 0.1)
  --tolerance T          reward difference beyond which an item goes to adjudication (default 0.1)
  --name NAME            batch name (default: run, window and rate)
  --dry-run              show the population and the sample; create nothing
  --plan                 show how big the audit must be over this window (items, design effect of sampling whole
                         tickets, tickets and rate, overall and per stratum); create nothing
  --half-width H         the plan's target half-width of the agreement's 95% interval (default: 0.03, 0.05, 0.1)
  --agreement P          the plan's expected agreement (default: the run's reviewed agreement, else 0.88)
  --icc R                the plan's intra-ticket correlation (default: measured from the run's reviews, else 0.3)
  --json                 print the manifest as JSON instead of the table
  --pairwise             a pairwise batch: --rate is the fraction of GRPO groups, --min-per-stratum tops up the
                         pair's deciding guardrails (no --pick, --plan or --tolerance)
  --delta D              pairwise: rewards differing by more than D make a clear pair (default 0.1)
  --near-ties R          pairwise: fraction of sampled groups that offer a near-tie instead (default 0.2)

exit status: 0 done, 1 refused (unknown run, empty sample), 2 usage.`;

type Io = Pick<CommandIo, "out" | "err">;
type PlanArgs = { halfWidths: number[]; agreement?: number; icc?: number };
const io: Io = stdio;

export function parseSampleArgs(
  argv: string[],
):
  | { ok: true; params: ResolvedBatchParams; dryRun: boolean; json: boolean; plan: PlanArgs | null }
  | { ok: false; message: string; help?: boolean } {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...flagSpec(
          [
            "run",
            "from",
            "to",
            "rate",
            "salt",
            "pick",
            "min-per-stratum",
            "overlap",
            "tolerance",
            "name",
            "half-width",
            "agreement",
            "icc",
            "delta",
            "near-ties",
          ],
          ["dry-run", "plan", "json", "pairwise"],
        ),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
  if (values.help) return { ok: false, message: "", help: true };
  const flag: Record<string, string> = {
    runId: "--run",
    stepFrom: "--from",
    stepTo: "--to",
    rate: "--rate",
    salt: "--salt",
    pick: "--pick",
    minPerStratum: "--min-per-stratum",
    overlapRate: "--overlap",
    tolerance: "--tolerance",
    name: "--name",
    delta: "--delta",
    nearTieRate: "--near-ties",
  };
  if (values.pairwise) {
    const misplaced = ["pick", "plan", "tolerance", "half-width", "agreement", "icc"].filter(
      (k) => values[k] !== undefined,
    );
    if (misplaced.length)
      return {
        ok: false,
        message: `${misplaced.map((k) => `--${k}`).join(", ")}: not with --pairwise (one pair per group)`,
      };
  } else if (values.delta !== undefined || values["near-ties"] !== undefined)
    return { ok: false, message: "--delta and --near-ties go with --pairwise" };
  const r = batchParamsSchema.safeParse({
    runId: values.run ?? "",
    stepFrom: values.from ?? "",
    stepTo: values.to ?? "",
    rate: values.rate,
    salt: values.salt,
    pick: values.pick,
    minPerStratum: values["min-per-stratum"],
    overlapRate: values.overlap,
    tolerance: values.tolerance,
    name: values.name,
    ...(values.pairwise ? { kind: "pairwise", delta: values.delta, nearTieRate: values["near-ties"] } : {}),
  });
  if (!r.success) {
    return {
      ok: false,
      message: r.error.issues.map((i) => `${flag[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`).join("; "),
    };
  }
  const fraction = (flag: string, v: unknown, open: boolean): number | string | undefined => {
    if (v === undefined) return undefined;
    const x = Number(v);
    const ok = v !== "" && Number.isFinite(x) && (open ? x > 0 && x < 1 : x >= 0 && x <= 1);
    return ok ? x : `${flag}: must be a number ${open ? "strictly between 0 and 1" : "between 0 and 1"}, got "${v}"`;
  };
  const hw = fraction("--half-width", values["half-width"], true);
  const agreement = fraction("--agreement", values.agreement, false);
  const icc = fraction("--icc", values.icc, false);
  const bad = [hw, agreement, icc].filter((x) => typeof x === "string");
  if (bad.length) return { ok: false, message: bad.join("; ") };
  if (!values.plan && (hw !== undefined || agreement !== undefined || icc !== undefined))
    return { ok: false, message: "--half-width, --agreement and --icc go with --plan" };
  return {
    ok: true,
    params: resolveParams(r.data),
    dryRun: !!values["dry-run"],
    json: !!values.json,
    plan: values.plan
      ? {
          halfWidths: hw !== undefined ? [hw as number] : [...PLAN_HALF_WIDTHS],
          agreement: agreement as number | undefined,
          icc: icc as number | undefined,
        }
      : null,
  };
}

const pct = (x: number) => `${+(x * 100).toFixed(3)}%`;

export function formatPreview(p: ResolvedBatchParams, preview: BatchPreview): string[] {
  const s = preview.sample;
  const lines = [
    `run ${p.runId}, steps ${p.stepFrom}–${p.stepTo}: ${preview.population.tickets} tickets, ${preview.population.rollouts} rollouts` +
      (preview.population.excluded ? ` (${preview.population.excluded} without a reward or rollout left out)` : ""),
    `rate ${pct(p.rate)}, pick ${p.pick}, salt ${p.salt}${p.minPerStratum ? `, at least ${p.minPerStratum} tickets per stratum` : ""}`,
    `expected ${s.expected.tickets.toFixed(1)} tickets / ${s.expected.items.toFixed(1)} items; drawn ${s.items.length} items (${s.overlapItems} for two reviewers)`,
    "",
    "stratum                 tickets  sampled  items  inclusion (ticket)",
  ];
  for (const x of s.strata) {
    lines.push(
      `${x.stratum.padEnd(22)} ${String(x.tickets).padStart(8)} ${String(x.sampledTickets).padStart(8)} ${String(x.items).padStart(6)}  ${x.ticketInclusionProb.toPrecision(4)}${x.toppedUp ? " (topped up)" : ""}`,
    );
  }
  lines.push("", `items hash ${s.itemsHash}`);
  return lines;
}

export function formatPairPreview(p: ResolvedBatchParams, preview: PairBatchPreview): string[] {
  const s = preview.sample;
  const pop = preview.population;
  const lines = [
    `run ${p.runId}, steps ${p.stepFrom}–${p.stepTo}: ${pop.groups} GRPO groups of two or more, ${pop.rollouts} rollouts` +
      (pop.excluded ? ` (${pop.excluded} without a reward or rollout left out)` : ""),
    `pairwise: rate ${pct(p.rate)} of groups, δ ${p.delta ?? DEFAULT_DELTA}, near-ties ${pct(p.nearTieRate ?? DEFAULT_NEAR_TIE_RATE)}, salt ${p.salt}` +
      (p.minPerStratum ? `, at least ${p.minPerStratum} groups per stratum` : ""),
    `expected ${s.expected.groups.toFixed(1)} pairs; drawn ${s.pairs.length} pairs (${s.nearTies} near-ties, ${s.overlapItems} for two reviewers)`,
    "",
    "stratum (deciding guardrails)             groups  sampled  inclusion (group)",
  ];
  for (const x of s.strata)
    lines.push(
      `${x.stratum.padEnd(40)} ${String(x.tickets).padStart(7)} ${String(x.sampledTickets).padStart(8)}  ${x.ticketInclusionProb.toPrecision(4)}${x.toppedUp ? " (topped up)" : ""}`,
    );
  lines.push("", `items hash ${s.itemsHash}`);
  return lines;
}

/** `verity sample --pairwise`: the preview, or the created batch. */
async function runPairwise(params: ResolvedBatchParams, dryRun: boolean, json: boolean, client: PrismaClient, out: Io) {
  if (dryRun) {
    const preview = await previewPairBatch(params, client);
    if (json) {
      const { population, sample } = preview;
      const { expected, strata, nearTies, overlapItems, itemsHash } = sample;
      out.out(
        JSON.stringify({
          dry_run: true,
          kind: "pairwise",
          population,
          expected,
          strata,
          items: sample.pairs.length,
          near_ties: nearTies,
          overlap_items: overlapItems,
          items_hash: itemsHash,
          salt: params.salt,
        }),
      );
    } else for (const l of formatPairPreview(params, preview)) out.out(l);
    return 0;
  }
  const r = await createPairBatch(params, { label: "cli" }, client);
  if (!r.ok) {
    out.err(`verity sample: ${r.error}`);
    return 1;
  }
  if (json) out.out(JSON.stringify({ batch_id: r.batchId, manifest: r.manifest }));
  else {
    for (const l of formatPairPreview(params, r.preview)) out.out(l);
    out.out(`created pairwise batch ${r.batchId} with ${r.items} pairs (${r.overlapItems} for two reviewers)`);
  }
  return 0;
}

/** The plan as text: one line per target, then the strata at the widest target. */
export function formatPlan(p: ResolvedBatchParams, preview: BatchPreview, plans: BatchPlan[]): string[] {
  const w = plans[plans.length - 1];
  const drawn = new Map(preview.sample.strata.map((s) => [s.stratum, s.items]));
  const lines = [
    `run ${p.runId}, steps ${p.stepFrom}–${p.stepTo}: ${preview.population.tickets} tickets, ${preview.population.rollouts} rollouts`,
    `expected agreement ${pct(w.agreement)} (${w.sources.agreement}); intra-ticket correlation ${w.icc.toFixed(2)} (${w.sources.icc})`,
    `${w.itemsPerTicket.toFixed(2)} items per sampled ticket (pick ${p.pick}): design effect ${w.designEffect.toFixed(2)}`,
    ...(w.iccRange
      ? [
          `intra-ticket correlation measured ${w.iccRange.estimate.toFixed(2)}, 95% interval ${w.iccRange.lower.toFixed(2)}–${w.iccRange.upper.toFixed(2)}: design effect ${w.iccRange.designEffect.lower.toFixed(2)}–${w.iccRange.designEffect.upper.toFixed(2)}, planned at the upper end`,
        ]
      : []),
    "",
    "target   items (SRS)  items  tickets  rate",
    ...plans.map(
      (x) =>
        `±${String(Math.round(x.halfWidth * 1000) / 10).padEnd(5)}% ${String(x.overall.itemsSrs).padStart(11)} ${String(x.overall.items).padStart(6)} ${String(x.overall.ticketsNeeded).padStart(8)}  ${x.overall.feasible ? pct(x.overall.rate) : "more than the window holds"}`,
    ),
    "",
    `per stratum at ±${Math.round(w.halfWidth * 1000) / 10}%     agreement  items  tickets  this batch (rate ${pct(p.rate)})`,
  ];
  for (const s of w.strata) {
    const d = drawn.get(s.stratum) ?? 0;
    lines.push(
      `${s.stratum.padEnd(24)} ${pct(s.agreement).padStart(9)} ${String(s.items).padStart(6)} ${String(s.ticketsNeeded).padStart(8)}  ${d}${d < s.items ? "  TOO SMALL" : ""}`,
    );
  }
  return lines;
}

export async function run(argv: string[], out: Io = io): Promise<number> {
  const parsed = parseSampleArgs(argv);
  if (!parsed.ok) {
    if (parsed.help) {
      out.out(USAGE);
      return 0;
    }
    out.err(`verity sample: ${parsed.message}\n\n${USAGE}`);
    return 2;
  }
  const { params, dryRun, json, plan } = parsed;
  return withBulkDatabase(async (_pool, url) => {
    const client = createClient(url);
    try {
      if (params.kind === "pairwise") return await runPairwise(params, dryRun, json, client, out);
      if (plan) {
        const [preview, evidence] = await Promise.all([
          previewBatch(params, client),
          loadPlanEvidence(params.runId, client),
        ]);
        const plans = plan.halfWidths.map((h) =>
          planForBatch(params, preview, evidence, h, { agreement: plan.agreement, icc: plan.icc }),
        );
        if (json) out.out(JSON.stringify({ plan: plans }));
        else for (const l of formatPlan(params, preview, plans)) out.out(l);
        return 0;
      }
      if (dryRun) {
        const preview = await previewBatch(params, client);
        if (json)
          out.out(
            JSON.stringify({
              dry_run: true,
              population: preview.population,
              expected: preview.sample.expected,
              strata: preview.sample.strata,
              items: preview.sample.items.length,
              overlap_items: preview.sample.overlapItems,
              items_hash: preview.sample.itemsHash,
              salt: params.salt,
            }),
          );
        else for (const l of formatPreview(params, preview)) out.out(l);
        return 0;
      }
      const r = await createBatch(params, { label: "cli" }, client);
      if (!r.ok) {
        out.err(`verity sample: ${r.error}`);
        return 1;
      }
      if (json) out.out(JSON.stringify({ batch_id: r.batchId, manifest: r.manifest }));
      else {
        for (const l of formatPreview(params, r.preview)) out.out(l);
        out.out(`created batch ${r.batchId} with ${r.items} items (${r.overlapItems} for two reviewers)`);
      }
      return 0;
    } finally {
      await client.$disconnect();
    }
  });
}
