import { describe, expect, it } from "vitest";
import { buildAgreementReportBefore } from "@/bench/lib/agreement-baseline.ts";
import { syntheticAgreementItems } from "@/bench/lib/agreement-items.ts";
import { onBasis } from "@/lib/agreement/data.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";

// The report's build after its rewrite (shared bootstrap draws, one pass for both bases) against the build as it was
// (bench/lib/agreement-baseline.ts): every figure, interval and label the same to the bit, on mixed synthetic audits
// with and without stratification, under the filters the build reads (guardrail, tolerance, basis).
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
        expect(buildAgreementReport(items, f)).toStrictEqual(buildAgreementReportBefore(items, f));
      });

  it("is the build as it was on a small audit (few overlap items, undefined figures)", () => {
    const f = agreementFilterSchema.parse({});
    for (const n of [0, 1, 5, 40]) {
      const items = syntheticAgreementItems(n, { seed: n });
      expect(buildAgreementReport(items, f)).toStrictEqual(buildAgreementReportBefore(items, f));
    }
  });
});
