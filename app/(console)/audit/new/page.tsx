import type { Metadata } from "next";
import { z } from "zod";
import { BatchParamsForm, type ParamValues } from "@/components/audit/batch-params-form.tsx";
import { AuditPlanCard } from "@/components/audit/audit-plan.tsx";
import { SearchScope } from "@/components/audit/search-scope.tsx";
import { CreateBatchForm } from "@/components/audit/create-batch-form.tsx";
import { PairPreview } from "@/components/audit/pair-preview.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import { listRunWindows, previewBatch, type RunWindow } from "@/lib/audit/data.ts";
import { newSalt } from "@/lib/audit/mutations.ts";
import { previewPairBatch } from "@/lib/audit/pair-data.ts";
import { loadPlanEvidence, planForBatch } from "@/lib/audit/plan.ts";
import { batchFormDefaults, batchParamsSchema, type ResolvedBatchParams } from "@/lib/audit/schema.ts";
import { SearchTimeoutError } from "@/lib/search/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { PLAN_HALF_WIDTHS } from "@/lib/stats/audit-plan.ts";

export const metadata: Metadata = { title: "New audit batch" };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** The preview, or none when the filters' search was stopped by its statement timeout (said at the filter). */
async function previewOrStopped(p: ResolvedBatchParams, errors: Record<string, string[] | undefined>) {
  try {
    return await previewBatch(p);
  } catch (err) {
    if (!(err instanceof SearchTimeoutError)) throw err;
    errors.filter = [`The search in the browser's filters: ${err.message}.`];
    return null;
  }
}

/** A blank window of a batch drawn from the browser's filters: the filters' steps, else the run's whole window. */
function searchWindow(raw: ParamValues, run: RunWindow | undefined): ParamValues {
  if (!raw.filter || (raw.stepFrom ?? "") !== "" || (raw.stepTo ?? "") !== "") return raw;
  const filter = new URLSearchParams(raw.filter);
  const defaults = batchFormDefaults(run, "");
  return {
    ...defaults,
    ...raw,
    stepFrom: filter.get("step_from") ?? defaults.stepFrom,
    stepTo: filter.get("step_to") ?? defaults.stepTo,
  };
}

// Define, preview, create. The preview is a GET (the URL reproduces it) that draws the very sample "Create" stores:
// the sampler is deterministic and the salt is fixed by the preview.
export default async function NewBatchPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("audit.manage");
  const [runs, sp] = await Promise.all([listRunWindows(), searchParams]);
  const raw: ParamValues = Object.fromEntries(Object.entries(sp).map(([k, v]) => [k, first(v) ?? ""]));
  const submitted = "runId" in raw;
  const run = runs.find((r) => r.id === raw.runId) ?? runs[0];
  // "Audit these" from the browser names the run and its filters; the window is the run's unless they narrow it
  const values: ParamValues = submitted
    ? { ...searchWindow(raw, run), salt: raw.salt?.trim() ? raw.salt : newSalt() }
    : batchFormDefaults(run, newSalt());
  const parsed = submitted ? batchParamsSchema.safeParse(values) : null;
  const errors: Record<string, string[] | undefined> =
    parsed && !parsed.success ? z.flattenError(parsed.error).fieldErrors : {};
  const resolved = parsed?.success ? { ...parsed.data, salt: values.salt } : null;
  const pairwise = resolved?.kind === "pairwise";
  const pairPreview = resolved && pairwise ? await previewPairBatch(resolved) : null;
  const [preview, evidence] =
    resolved && !pairwise
      ? await Promise.all([previewOrStopped(resolved, errors), loadPlanEvidence(resolved.runId)])
      : [null, null];
  const plans =
    resolved && preview && evidence ? PLAN_HALF_WIDTHS.map((h) => planForBatch(resolved, preview, evidence, h)) : null;

  return (
    <>
      <PageHeader
        title="New audit batch"
        description="A reproducible sample of a run's tickets over a step window, for blind human shadow scoring, or of its GRPO groups, for blind pairwise review."
      />
      <Card title="Parameters">
        {runs.length === 0 ? (
          <p className="px-3 py-2 text-fg-muted">No runs yet: ingest a run first.</p>
        ) : (
          <BatchParamsForm runs={runs} values={values} errors={errors} />
        )}
      </Card>
      {pairPreview && (
        <Card title="Preview (pairwise)" className="mt-4">
          <PairPreview preview={pairPreview} />
          <CreateBatchForm values={values} items={pairPreview.sample.pairs.length} />
        </Card>
      )}
      {preview && (
        <Card title="Preview" className="mt-4">
          {resolved?.filter && <SearchScope filter={resolved.filter} rollouts={preview.population.rollouts} />}
          <div className="grid grid-cols-2 gap-2 p-3 md:grid-cols-5" data-testid="preview">
            <Stat
              label="Tickets in window"
              value={fmtInt(preview.population.tickets)}
              hint={
                preview.population.excluded
                  ? `${fmtInt(preview.population.excluded)} rollouts without a reward left out`
                  : undefined
              }
            />
            <Stat
              label={resolved?.filter ? "Matching rollouts" : "Rollouts in window"}
              value={fmtInt(preview.population.rollouts)}
            />
            <Stat
              label="Expected sample"
              value={`${preview.sample.expected.tickets.toFixed(1)} tickets`}
              hint={`${preview.sample.expected.items.toFixed(1)} items`}
            />
            <Stat
              label="Drawn"
              value={`${fmtInt(preview.sample.items.length)} items`}
              hint={`${fmtInt(preview.sample.strata.reduce((s, x) => s + x.sampledTickets, 0))} tickets`}
            />
            <Stat label="Two reviewers" value={fmtInt(preview.sample.overlapItems)} hint="overlap items" />
          </div>
          <Table className="preview-strata">
            <Head
              cols={[
                "Stratum (deciding guardrail)",
                ...numeric(
                  "Tickets",
                  "Rollouts",
                  "Under the rate",
                  "Sampled tickets",
                  "Items",
                  "Inclusion probability (ticket)",
                ),
              ]}
            />
            <tbody>
              {preview.sample.strata.map((s) => (
                <tr key={s.stratum}>
                  <Td className="font-mono text-[12px]">{s.stratum}</Td>
                  <Td numeric>{fmtInt(s.tickets)}</Td>
                  <Td numeric>{fmtInt(s.rollouts)}</Td>
                  <Td numeric>{fmtInt(s.baseTickets)}</Td>
                  <Td numeric>{fmtInt(s.sampledTickets)}</Td>
                  <Td numeric>{fmtInt(s.items)}</Td>
                  <Td numeric>
                    {/* the badge under the figure: beside it, the last column overflowed the card */}
                    <div className="flex flex-col items-end gap-0.5">
                      {s.ticketInclusionProb.toPrecision(3)}
                      {s.toppedUp && <Badge tone="warn">topped up</Badge>}
                    </div>
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
          <p className="px-3 pt-2 font-mono text-[11px] text-fg-muted">items hash {preview.sample.itemsHash}</p>
          <CreateBatchForm values={values} items={preview.sample.items.length} />
        </Card>
      )}
      {preview && plans && (
        <Card title="How big the audit must be" className="mt-4">
          <AuditPlanCard plans={plans} preview={preview} />
        </Card>
      )}
    </>
  );
}
