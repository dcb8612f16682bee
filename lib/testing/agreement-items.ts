// Synthetic reviewed items for the agreement report's build (bench/agreement.ts, and the test that the report's
// figures did not move, lib/agreement/report-same.test.ts): no database, the same items for the same seed. Mixed as a
// real audit is: three annotators, a tenth of the items reviewed twice, guardrails on both sides with a few slips,
// sub-scores on a 0.25 grid with some missing, claims against each item's case, adjudicated disagreements, a few
// excluded reviews and re-scored items, and (with `stratified`) unequal inclusion probabilities; with `gridRewards`,
// human rewards on a 0.25 grid (a coarse rubric), otherwise continuous.
import type { AgreementItem } from "@/lib/agreement/data.ts";
import type { HumanSide, LedgerSide } from "@/lib/review/data.ts";
import { mulberry32 } from "@/lib/stats/prng.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type GuardrailCode } from "@/lib/verifier/codes.ts";

const TOOLS = ["finance.issue_refund", "orders.cancel", "crm.update_address"];
const KEYS = ["order_id", "amount", "eta"];
const CAUSES = ["verifier_rule_wrong", "annotator_wrong", "extraction_wrong", "spec_wrong"];

export function syntheticAgreementItems(
  n: number,
  opts: { seed?: number; stratified?: boolean; gridRewards?: boolean } = {},
): AgreementItem[] {
  const rng = mulberry32(opts.seed ?? 7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
  const grid = () => Math.round(rng() * 4) / 4;
  const day0 = Date.parse("2026-11-01T09:00:00Z");
  const items: AgreementItem[] = [];
  for (let k = 0; k < n; k++) {
    const id = BigInt(k + 1);
    const scored = rng() > 0.01;
    const reward = scored ? Math.round(rng() * 20) / 20 : null;
    const lg = GUARDRAIL_CODES.filter((_, j) => rng() < 0.02 + j * 0.004) as GuardrailCode[];
    const claims = {
      claimed_writes: TOOLS.filter(() => rng() < 0.4),
      mentioned: KEYS.filter(() => rng() < 0.5).map((key) => ({ key, value: rng() < 0.5 ? "12.50" : 12.5 })),
      forbidden_hits: rng() < 0.05 ? ["pii_dump"] : [],
    };
    const ledger = (ledgerId: bigint, r: number | null): LedgerSide => ({
      ledgerId,
      status: r === null ? "spec_error" : "scored",
      source: "verifier",
      reward: r,
      rawReward: r,
      subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, rng() < 0.03 ? null : grid()])) as never,
      guardrails: lg,
      decidingGuardrail: lg[0] ?? null,
      claims: rng() < 0.9 ? claims : null,
      claimsSource: "bundle",
      reasons: [],
      guardrailHits: lg.map((code) => ({ code, cap: 0.3 })),
    });
    const reviewed = ledger(id * 2n, reward);
    const twice = rng() < 0.1;
    const review = (j: number): HumanSide => {
      const slip = rng() < 0.12;
      const h0 = reward === null ? grid() : Math.min(1, Math.max(0, slip ? grid() : reward + (rng() - 0.5) * 0.1));
      const h = opts.gridRewards ? Math.round(h0 * 4) / 4 : h0;
      return {
        reviewId: id * 10n + BigInt(j),
        reviewerId: 1 + ((k + j) % 3),
        reviewerEmail: `annotator-${1 + ((k + j) % 3)}@example.org`,
        reward: h,
        subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, grid()])) as never,
        guardrails: [...lg.filter(() => rng() > 0.15), ...(rng() < 0.03 ? [pick(GUARDRAIL_CODES)] : [])],
        claims: {
          claimed_writes: claims.claimed_writes.filter(() => rng() > 0.1),
          mentioned: claims.mentioned.filter(() => rng() > 0.1),
          forbidden_hits: claims.forbidden_hits,
        },
        note: "",
        secondsSpent: 60,
        createdAt: new Date(day0 + Math.floor(rng() * 30) * 86_400_000 + j * 3_600_000),
        excludedReason: null,
      };
    };
    const reviews = twice ? [review(0), review(1)] : [review(0)];
    const excluded = rng() < 0.01 ? [{ ...review(2), excludedReason: "author's role (lead) can read the ledger" }] : [];
    const rescored = rng() < 0.05;
    const now = rescored ? ledger(id * 2n + 1n, reward === null ? null : Math.min(1, reward + 0.2)) : reviewed;
    const disagrees = reward !== null && Math.abs(reviews[0].reward - reward) > 0.1;
    items.push({
      item: {
        itemId: id,
        batchId: 1 + (k % 3),
        runId: "synthetic",
        step: k % 500,
        trajectoryId: `traj-${k}`,
        ticketId: `T${k % 700}`,
        stratum: opts.stratified ? `s${k % 4}` : null,
        inclusionProb: opts.stratified ? [0.01, 0.02, 0.05, 0.2][k % 4] : 0.01,
        reviewsNeeded: reviews.length,
        reviewsDone: reviews.length,
        disputedAt: disagrees ? new Date(day0) : null,
        tolerance: 0.1,
      },
      slots: {
        writeTools: TOOLS.slice(0, 1 + (k % 3)),
        mentionKeys: KEYS.slice(0, k % 3),
        forbiddenCodes: ["pii_dump"],
      },
      category: pick(["refund_damaged", "cancel_order", "address_change"]),
      ledger: reviewed,
      reviews,
      excluded,
      adjudication: disagrees && rng() < 0.5 ? { cause: pick(CAUSES), guardrail: lg[0] ?? null } : null,
      bases: { reviewed, now, rescored },
    });
  }
  return items;
}
