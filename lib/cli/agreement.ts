import { parseArgs } from "node:util";
import { withClient } from "@/lib/cli/client.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport, reportJson } from "@/lib/agreement/report.ts";
import { parseAgreementFilter } from "@/lib/agreement/schema.ts";
import { flagSpec } from "@/lib/cli/command.ts";

const HELP = `usage: verity agreement [--run R] [--batch N] [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                        [--category C] [--annotator EMAIL] [--guardrail CODE] [--tolerance 0.1]
                        [--basis reviewed|now] [--json]

Prints the human/ledger agreement report: a summary, or with --json the same JSON as GET /api/v1/agreement.
--basis now compares the reviews with each rollout's current ledger entry (after re-scores and spec fixes) instead
of the entry each item recorded when it was reviewed (the default); the summary shows both when they differ.`;

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...flagSpec(
          ["run", "batch", "from", "to", "category", "annotator", "guardrail", "tolerance", "basis"],
          ["json"],
        ),
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`verity agreement: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP + "\n");
    return 0;
  }
  const { json, help: _help, ...filters } = values;
  void _help;
  const parsed = parseAgreementFilter(filters);
  if (!parsed.ok) {
    process.stderr.write(`verity agreement: ${parsed.errors.join("; ")}\n`);
    return 2;
  }
  const report = await withClient(async (client) =>
    buildAgreementReport(await loadAgreementItems(parsed.filter, client, { lean: true }), parsed.filter),
  );
  if (json) {
    process.stdout.write(JSON.stringify(reportJson(report)) + "\n");
    return 0;
  }
  const h = report.headline;
  const ex = report.extraction;
  const lines = [
    `reviewed items   ${report.items}`,
    `agreement        ${h.label}  (${h.detail})`,
    ...(report.bases.differ
      ? [
          `as reviewed/now  ${pct(report.bases.reviewed.rate)} → ${pct(report.bases.now.rate)}  (${report.bases.rescored.length} items re-scored since review, ${report.bases.flipped.length} of them changed agreement; this report: ${report.basis === "now" ? "now" : "as reviewed"})`,
        ]
      : []),
    ...(report.weighted
      ? [`weighted 1/π     ${report.weighted.figure.label}  (${report.weighted.figure.detail})`]
      : []),
    `kappa (success)  ${report.verdict ? `${report.verdict.figure.label}  (${report.verdict.figure.detail}, bootstrap)${report.verdict.read === "kappa" ? "  <- read this" : ""}` : "not defined"}`,
    ...(report.verdict
      ? [
          `AC1 (success)    ${report.verdict.ac1.label}  (${report.verdict.ac1.detail}, t)`,
          `PABAK (success)  ${report.verdict.pabak.label}  (${report.verdict.pabak.detail}, t)`,
          `positive agr.    ${report.verdict.positiveAgreement.label}  (successes: ${report.verdict.positiveAgreement.detail})${report.verdict.read === "specific" ? "  <- read this" : ""}`,
          `negative agr.    ${report.verdict.negativeAgreement.label}  (failures: ${report.verdict.negativeAgreement.detail})${report.verdict.read === "specific" ? "  <- read this" : ""}`,
          `prevalence       ledger passes ${pct(report.verdict.prevalence.ledger)}, human side ${pct(report.verdict.prevalence.human)} of ${report.verdict.prevalence.n} items`,
        ]
      : []),
    `AC1 between annotators (success) ${report.interAnnotator.verdict.ac1.label}  (${report.interAnnotator.verdict.ac1.detail})`,
    `alpha (reward)   ${report.interAnnotator.rewardAlphaFigure.label}  (${report.interAnnotator.rewardAlphaFigure.detail}) over ${report.interAnnotator.items} overlap items`,
    `excluded reviews ${report.excluded.length}${report.excluded.length ? "  (not blind: their authors could have seen the ledger; --json lists each with its reason)" : ""}`,
    `extraction       ${ex.overall ? `${ex.overallFigure.label}  (${ex.overallFigure.detail})${ex.belowThreshold && !ex.overallFigure.tooFew ? "  BELOW 0.85" : ""}` : "no data"}`,
    "",
    `guardrail                 both  ledger-only  human-only  flagged l/h  kappa${report.stratified ? "  (weighted 1/π)" : ""}  |  AC1  |  PABAK  |  positive / negative agreement`,
    ...report.guardrails.map((g) => {
      const shown = (x: { label: string; value: number | null }) =>
        g.filteredOn && x.value === null ? "not defined" : x.label;
      const specific = `${shown(g.figures.positiveAgreement)} / ${shown(g.figures.negativeAgreement)}${g.read === "specific" ? " <-" : ""}`;
      return `${g.code.padEnd(24)} ${String(g.tp).padStart(5)} ${String(g.fp).padStart(12)} ${String(g.fn).padStart(11)}  ${`${pct(g.prevalence.ledger)}/${pct(g.prevalence.human)}`.padStart(11)}  ${shown(g.figures.kappa)}${g.weighted ? `  (${g.weighted.kappa.label})` : ""}  |  ${shown(g.figures.ac1)}  |  ${shown(g.figures.pabak)}  |  ${specific}`;
    }),
    ...report.guardrails
      .filter((g) => g.filteredOn)
      .map(
        (g) =>
          `filtered on ${g.code}: every item is one the ledger or a reviewer flags with it, so its row has no true negative; κ, AC1, PABAK and negative agreement are not defined for it`,
      ),
    "",
    report.prevalenceNote,
    `Below ${report.minItems} items a figure reads "too few to say"; --json gives every figure with its n and interval.`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}

function pct(x: number | null): string {
  return x === null ? "–" : `${Math.round(x * 100)}%`;
}
