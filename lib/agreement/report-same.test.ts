import { describe, expect, it } from "vitest";
import { onBasis } from "@/lib/agreement/data.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { syntheticAgreementItems } from "@/lib/testing/agreement-items.ts";
import { buildAgreementReportBefore } from "@/lib/testing/agreement-report-before.ts";

// The report's build against the build as it was (lib/testing/agreement-report-before.ts), on mixed synthetic audits with and
// without stratification, under the filters the build reads (guardrail, tolerance, basis). Every figure, label and
// count is the same to the bit, except the bounds of the bootstrap intervals of κ (ledger vs human, weighted or not),
// of α on a nominal scale, and of the reward's α when the rewards take few values: those are now drawn as multinomial
// cell (or pattern) counts (lib/stats/multinomial.ts) instead of index draws, the same bootstrap in distribution but
// another stream, so each bound must lie within a quarter of its
// interval's width (or 0.02) of the baseline's. A quarter, because κ over a rare flag takes few values: with 3
// positives in 46 items its 2.5% quantile jumps between 0.378, 0.404, 0.465 and 0.483 from seed to seed in either
// resampling, even at 20,000 resamples. A bound moved by more than that is not noise (the last test).

type Diff = { path: string; before: unknown; after: unknown };

/**
 * Both reports without what was defined after the baseline: positive and negative agreement, `filteredOn`, and the
 * row of the guardrail the report is filtered on (its table has no true negative, so its κ, AC1 and PABAK are now not
 * defined; report.test.ts holds that).
 */
function sinceBaseline<T>(report: T, guardrail: string | undefined): T {
  const r = structuredClone(report) as Record<string, unknown> & {
    verdict: Record<string, unknown> | null;
    guardrails: (Record<string, unknown> & { code: string; figures: Record<string, unknown> })[];
  };
  if (r.verdict) for (const k of ["positiveAgreement", "negativeAgreement"]) delete r.verdict[k];
  r.guardrails = r.guardrails.filter((g) => g.code !== guardrail);
  for (const g of r.guardrails) {
    delete g.filteredOn;
    for (const k of ["positiveAgreement", "negativeAgreement"]) delete g.figures[k];
  }
  return r as T;
}

/** Walks both reports; bootstrap bounds are compared with a tolerance, everything else exactly. */
function compare(after: unknown, before: unknown, path: string, out: Diff[], width: number | null = null) {
  if (typeof after === "number" && typeof before === "number" && width !== null) {
    if (Math.abs(after - before) > Math.max(0.02, width / 4)) out.push({ path, before, after });
    return;
  }
  // an undefined figure whose reason is now worded by what makes it undefined (one category only) stays undefined
  if (typeof after === "string" && typeof before === "string" && /\.undefinedReason$/.test(path)) return;
  if (
    typeof after === "string" &&
    typeof before === "string" &&
    /^not defined/.test(after) &&
    /^not defined/.test(before)
  )
    return;
  if (typeof after === "string" && typeof before === "string" && width !== null) {
    // "n = 40 · 95% CI 0.655 to 1.000": the same text with the bounds left out, the bounds by the rule above
    const num = /-?\d+\.\d{3}/g;
    if (after.replace(num, "#") !== before.replace(num, "#")) out.push({ path, before, after });
    return;
  }
  if (after && before && typeof after === "object" && typeof before === "object") {
    const a = after as Record<string, unknown>;
    const b = before as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    const iv = (o: Record<string, unknown>) =>
      o.interval && typeof o.interval === "object" ? (o.interval as { lower: number; upper: number }) : null;
    // a zero-width interval (every item agreeing, or one category only) is no longer given: perfectAgreementInterval
    // replaces it, or the coefficient is not defined (report.test.ts holds both)
    if ("lower" in b && "upper" in b && b.lower === b.upper) return;
    for (const k of keys) {
      const isBound = (k === "lower" || k === "upper") && bootstrapped(path);
      const w = isBound ? Math.abs(Number(b.upper) - Number(b.lower)) : null;
      const ivB = iv(b);
      const detailWidth = k === "detail" && bootstrapped(path) && ivB ? Math.abs(ivB.upper - ivB.lower) : null;
      compare(a[k], b[k], `${path}.${k}`, out, w ?? detailWidth ?? (k === "interval" ? null : width));
    }
    return;
  }
  if (!Object.is(after, before) && JSON.stringify(after) !== JSON.stringify(before)) out.push({ path, before, after });
}

/** The paths of the figures with a bootstrap interval whose resampling changed: κ against the ledger, α. */
function bootstrapped(path: string): boolean {
  if (/interAnnotator\.guardrails\.\d+\.figure/.test(path)) return true;
  if (/interAnnotator\.rewardAlpha(Interval|Figure)/.test(path)) return true;
  if (/\.kappa$|\.kappa\.interval$|weightedKappa/.test(path)) return true;
  if (/^\.verdict(\.interval|\.figure(\.interval)?)$/.test(path)) return true;
  if (/\.weighted\.kappa(\.interval)?$/.test(path)) return true;
  return false;
}

describe("buildAgreementReport", () => {
  for (const stratified of [false, true])
    for (const over of [
      {},
      { basis: "now" },
      { guardrail: "empty_promise" },
      { guardrail: "policy_error", tolerance: 0.05 },
    ])
      it(`is the build as it was (${stratified ? "stratified" : "equal π"}, ${JSON.stringify(over)})`, () => {
        const f = agreementFilterSchema.parse(over);
        const items = onBasis(syntheticAgreementItems(1500, { stratified, seed: 11 }), f.basis);
        const diffs: Diff[] = [];
        compare(
          sinceBaseline(buildAgreementReport(items, f), f.guardrail),
          sinceBaseline(buildAgreementReportBefore(items, f), f.guardrail),
          "",
          diffs,
        );
        expect(diffs.map((d) => `${d.path} ${JSON.stringify(d.before)} ${JSON.stringify(d.after)}`)).toEqual([]);
      });

  it("is the build as it was with human rewards on a grid (the reward's α drawn as counts)", () => {
    const f = agreementFilterSchema.parse({});
    const items = syntheticAgreementItems(6000, { seed: 12, gridRewards: true });
    const after = sinceBaseline(buildAgreementReport(items, f), f.guardrail);
    const before = buildAgreementReportBefore(items, f);
    const diffs: Diff[] = [];
    compare(after, before, "", diffs);
    expect(diffs).toEqual([]);
    // another stream: the bounds moved within the noise, not to the bit
    expect(after.interAnnotator.rewardAlphaInterval).not.toEqual(before.interAnnotator.rewardAlphaInterval);
  }, 30_000); // two builds over 6,000 items: about 5 s alone, more on a shared machine

  it("is the build as it was on a small audit (few overlap items, undefined figures)", () => {
    const f = agreementFilterSchema.parse({});
    for (const n of [0, 1, 5, 40]) {
      const items = syntheticAgreementItems(n, { seed: n });
      const diffs: Diff[] = [];
      compare(
        sinceBaseline(buildAgreementReport(items, f), f.guardrail),
        buildAgreementReportBefore(items, f),
        "",
        diffs,
      );
      expect(diffs).toEqual([]);
    }
  });

  it("tells a moved bound from the resampling's noise", () => {
    const f = agreementFilterSchema.parse({});
    const items = syntheticAgreementItems(1500, { seed: 11 });
    const before = buildAgreementReportBefore(items, f);
    const after = sinceBaseline(buildAgreementReport(items, f), f.guardrail);
    after.verdict!.interval!.lower -= 0.1;
    const diffs: Diff[] = [];
    compare(after, before, "", diffs);
    expect(diffs.map((d) => d.path)).toEqual([".verdict.interval.lower"]);
  });
});
