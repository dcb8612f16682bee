// The demo's pairwise audit of grpo-hacking: one batch of GRPO pairs over the whole run, judged blind by the two demo
// annotators, in which the humans prefer more and more often, as training goes on, the rollout that did the work over
// the one that handed off with a higher ledger reward — the hand-off blind spot seen the way GRPO consumes rewards:
// within a group, the hand-off's advantage is positive against an attempt that did the work, so the policy learns to
// hand off. Those judgements are the batch's inversions (disputed, for adjudication), and late in the run the
// ordering agreement's lower bound falls below the alarm's 0.8. Every pair is judged: none is left in the queues,
// whose batch order the end-to-end tests read. Deterministic: every choice is a hash draw.
//
// The draw is the pairwise sampler's (lib/audit/pair-sampler.ts) with one change, recorded on the manifest: in a
// sampled group that has one, the pair is a hand-off the ledger rewards higher (by any margin) than a rollout that did
// the work — the story pair, which the product's sampler rarely draws, since late in the run the rollouts that did the
// work mostly score 1. Inclusion probabilities are the draw's own: P(group) · P(pair | group).
import { sha256Tag, uniformHash } from "@/lib/audit/hash.ts";
import type { Db } from "@/lib/db/client.ts";
import { loadPopulation, type PopulationEntry } from "@/lib/audit/data.ts";
import { defaultConfig, storeBatch } from "@/lib/audit/mutations.ts";
import { PAIR_SAMPLER_VERSION } from "@/lib/audit/pair-mutations.ts";
import { DEFAULT_DELTA, DEFAULT_NEAR_TIE_RATE, groupKeyOf, pairStratum } from "@/lib/audit/pair-sampler.ts";
import { compareStrings } from "@/lib/audit/sampler.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import { ledgerOrder } from "@/lib/ledger/order.ts";
import type { PairChoice, PairReason } from "@/lib/pairwise/schema.ts";
import { exclusionReason } from "@/lib/review/blind.ts";

type Person = { id: number; email: string };
export type PairDemoWho = { a1: Person; a2: Person };

const SALT = "demo-pairwise";
/** Groups the batch samples per audit window: enough ordered judgements per window for the alarm to judge (≥ 30). */
const GROUPS_PER_WINDOW = 48;
/** Share of pairs judged by both annotators (inter-annotator agreement on pairs). */
const OVERLAP_RATE = 0.1;
/** Share of the other clear pairs an annotator orders against the ledger anyway (a slip). */
const SLIP_RATE = 0.01;
/** Share of near-ties called a tie. */
const NEAR_TIE_TIES = 0.6;

/**
 * Probability that an annotator prefers the rollout that did the work over a hand-off the ledger rewards higher, at
 * training fraction t in [0, 1]: rare while hand-offs are rare, then rising from 30% of the run on as they take over (curve.ts: 8% → 41%), to
 * always from 80% on.
 */
export function storyInversionAt(t: number): number {
  const x = Math.min(1, Math.max(0, t));
  return x < 0.3 ? 0.02 : Math.min(1, 0.02 + ((x - 0.3) / 0.5) * 0.98);
}

type Row = PopulationEntry & { handoff: boolean };
type Drawn = { a: Row; b: Row; story: boolean; nearTie: boolean; pairProb: number };

const pairKey = (a: Row, b: Row) => `${a.trajectoryId}\u0000${b.trajectoryId}`;

function lowest(pairs: [Row, Row][], domain: string): [Row, Row] {
  return pairs
    .map((p) => ({ p, u: uniformHash(SALT, "pair", `${domain}:${pairKey(...p)}`) }))
    .sort((x, y) => x.u - y.u)[0].p;
}

/** The pair of a sampled group: its story pair when it has one, else the sampler's clear pair or near-tie. */
function drawPair(id: string, rows: Row[]): Drawn {
  rows.sort((x, y) => compareStrings(x.trajectoryId, y.trajectoryId));
  const story: [Row, Row][] = [];
  const clear: [Row, Row][] = [];
  const near: [Row, Row][] = [];
  for (let i = 0; i < rows.length; i++)
    for (let j = i + 1; j < rows.length; j++) {
      const [x, y] = [rows[i], rows[j]];
      const gap = Math.abs(x.reward - y.reward);
      const [hi, lo] = x.reward > y.reward ? [x, y] : [y, x];
      if (gap > 0 && hi.handoff && !lo.handoff) story.push([x, y]);
      else (gap > DEFAULT_DELTA ? clear : near).push([x, y]);
    }
  if (story.length) return { ...pick(lowest(story, "story")), story: true, nearTie: false, pairProb: 1 / story.length };
  const wantNear = uniformHash(SALT, "near_tie", id) < DEFAULT_NEAR_TIE_RATE;
  const nearTie = near.length > 0 && (wantNear || clear.length === 0);
  const cls = nearTie ? near : clear;
  const classProb =
    near.length > 0 && clear.length > 0 ? (nearTie ? DEFAULT_NEAR_TIE_RATE : 1 - DEFAULT_NEAR_TIE_RATE) : 1;
  return { ...pick(lowest(cls, "pair")), story: false, nearTie, pairProb: classProb / cls.length };
}
const pick = ([a, b]: [Row, Row]) => ({ a, b });

/** The judgement an annotator makes of a drawn pair at training fraction t, and the reviewer's own hash draw h. */
function judge(d: Drawn, t: number, h: number): { preferred: Row | null; reason: PairReason | null; note: string } {
  const [hi, lo] = d.a.reward > d.b.reward ? [d.a, d.b] : d.b.reward > d.a.reward ? [d.b, d.a] : [null, null];
  if (d.story && hi && lo) {
    return h < storyInversionAt(t)
      ? {
          preferred: lo,
          reason: "outcome",
          note: "This one did the work; the other handed off a ticket the agent could resolve, and nothing was done.",
        }
      : { preferred: hi, reason: "policy", note: "" };
  }
  if (d.nearTie || !hi || !lo) {
    if (h < NEAR_TIE_TIES || !hi) return { preferred: null, reason: null, note: "" };
    return { preferred: hi, reason: "efficiency", note: "" };
  }
  if (h < SLIP_RATE) return { preferred: lo, reason: "communication", note: "The reply reads better." };
  return { preferred: hi, reason: lo.decidingGuardrail ? "safety" : "outcome", note: "" };
}

/** The rollouts each demo annotator has reviewed (their reveal showed the ledger's numbers). */
async function seenBy(client: Db, who: PairDemoWho): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  for (const p of [who.a1, who.a2]) {
    const reviewed = await client.review.findMany({
      where: { reviewerId: p.id },
      select: { item: { select: { trajectoryId: true } } },
    });
    out.set(p.id, new Set(reviewed.map((r) => r.item.trajectoryId)));
  }
  return out;
}

/**
 * Creates grpo-hacking's pairwise batch and writes its judgements (call after the run's ticket audit: its thresholds
 * give the audit window). Returns a one-line description, or null when the run has no pairs.
 */
export async function seedHackingPairwise(
  client: PrismaClient,
  runId: string,
  window: number,
  who: PairDemoWho,
): Promise<string | null> {
  const span = await client.ledgerEntry.aggregate({ where: { runId }, _min: { step: true }, _max: { step: true } });
  const [stepFrom, stepTo] = [span._min.step ?? 0, span._max.step ?? 0];
  const pop = await loadPopulation(runId, stepFrom, stepTo, client);
  const handoffs = await client.ledgerEntry.findMany({
    where: { runId, isCurrent: true, handoff: true },
    select: { trajectoryId: true },
  });
  const handedOff = new Set(handoffs.map((h) => h.trajectoryId));
  const groups = new Map<string, Row[]>();
  for (const r of pop.rows) {
    const k = groupKeyOf(r);
    const row = { ...r, handoff: handedOff.has(r.trajectoryId) };
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  const windows = Math.max(1, Math.ceil((stepTo - stepFrom + 1) / window));
  const rate = Math.min(1, (GROUPS_PER_WINDOW * windows) / Math.max(1, groups.size));
  const seen = await seenBy(client, who);
  const drawn: (Drawn & { bOnLeft: boolean; reviewsNeeded: 1 | 2; inclusionProb: number })[] = [];
  let leftOut = 0;
  for (const [id, rows] of [...groups].sort((x, y) => compareStrings(x[0], y[0]))) {
    if (rows.length < 2 || uniformHash(SALT, "group", id) >= rate) continue;
    const d = drawPair(id, rows);
    const key = pairKey(d.a, d.b);
    const reviewsNeeded = uniformHash(SALT, "overlap", key) < OVERLAP_RATE ? 2 : 1;
    // A pair fewer annotators could judge blind than it needs would stay open in the queues (whose batch order the
    // end-to-end tests read): left out, and counted on the manifest.
    const blind = [...seen.values()].filter((s) => !s.has(d.a.trajectoryId) && !s.has(d.b.trajectoryId)).length;
    if (blind < reviewsNeeded) {
      leftOut++;
      continue;
    }
    drawn.push({
      ...d,
      bOnLeft: uniformHash(SALT, "side", key) < 0.5,
      reviewsNeeded,
      inclusionProb: rate * d.pairProb,
    });
  }
  if (drawn.length === 0) return null;
  const params: ResolvedBatchParams = {
    name: `${runId} pairwise audit (hand-offs against the work)`,
    runId,
    stepFrom,
    stepTo,
    rate,
    salt: SALT,
    pick: "one",
    overlapRate: OVERLAP_RATE,
    tolerance: 0.1,
    kind: "pairwise",
    delta: DEFAULT_DELTA,
    nearTieRate: DEFAULT_NEAR_TIE_RATE,
  };
  const itemsHash = sha256Tag(
    drawn
      .map((x) => `${x.a.trajectoryId}\t${x.b.trajectoryId}`)
      .sort(compareStrings)
      .join("\n"),
  );
  const config = await defaultConfig(client);
  const batchId = await storeBatch(
    client,
    params,
    {
      configId: config?.id ?? null,
      itemsHash,
      manifest: {
        sampler_version: `${PAIR_SAMPLER_VERSION}+demo-story`,
        kind: "pairwise",
        design:
          "demo: groups sampled at the rate by hash; in a group with a hand-off the ledger rewards above a rollout that did the work, that pair; else the sampler's clear pair or near-tie",
        params: { run_id: runId, step_from: stepFrom, step_to: stepTo, rate, salt: SALT, delta: DEFAULT_DELTA },
        items: drawn.length,
        story_items: drawn.filter((d) => d.story).length,
        left_out_seen: leftOut,
        items_hash: itemsHash,
      },
    },
    drawn.map((x) => ({
      batchId: 0,
      runId,
      rolloutId: x.a.rolloutId,
      ledgerId: x.a.ledgerId,
      trajectoryId: x.a.trajectoryId,
      ticketId: x.a.ticketId,
      rolloutBId: x.b.rolloutId,
      ledgerBId: x.b.ledgerId,
      trajectoryBId: x.b.trajectoryId,
      bOnLeft: x.bOnLeft,
      stratum: pairStratum(x.a.decidingGuardrail, x.b.decidingGuardrail),
      inclusionProb: x.inclusionProb,
      reviewsNeeded: x.reviewsNeeded,
    })),
    { label: "demo" },
  );
  const written = await writePairReviews(
    client,
    batchId,
    drawn,
    { stepFrom, span: Math.max(1, stepTo - stepFrom) },
    who,
  );
  return `pairwise audit: batch ${batchId} on ${runId}, ${drawn.length} pairs, ${written.reviews} judgements (${written.inversions} inversions, rising late)`;
}

/**
 * Writes the judgements as submitPairReview stores them (review, item state, disputed on an inversion, activity log),
 * in one transaction, with the same rule for which judgements count (exclusionReason, lib/review/blind.ts) — asked
 * once per reviewer for the role, and per pair only when the reviewer reviewed one of its rollouts elsewhere (each
 * rollout is in at most one pair of the batch, so nothing else can exclude it). Bulk inserts: the demo loads on
 * `npm start`.
 */
async function writePairReviews(
  client: PrismaClient,
  batchId: number,
  drawn: readonly (Drawn & { bOnLeft: boolean; reviewsNeeded: 1 | 2 })[],
  run: { stepFrom: number; span: number },
  who: PairDemoWho,
): Promise<{ reviews: number; inversions: number }> {
  const items = await client.auditItem.findMany({
    where: { batchId },
    select: { id: true, trajectoryId: true, trajectoryBId: true },
  });
  const idOf = new Map(items.map((i) => [`${i.trajectoryId}\u0000${i.trajectoryBId}`, i.id]));
  const ordered = [...drawn].sort((x, y) => x.a.step - y.a.step || compareStrings(x.a.trajectoryId, y.a.trajectoryId));
  const start = Date.now() - 2 * 86_400_000;
  const spacing = (2 * 86_400_000 - 3_600_000) / Math.max(ordered.length, 1);
  const totals = { reviews: 0, inversions: 0 };
  await client.$transaction(
    async (tx) => {
      const seen = await seenBy(tx, who);
      const roleReason = new Map<number, string | null>();
      for (const p of [who.a1, who.a2])
        roleReason.set(p.id, await exclusionReason(tx, { userId: p.id, itemId: BigInt(0), trajectoryId: "" }));
      const excluded = async (p: Person, itemId: bigint, d: Drawn) => {
        const s = seen.get(p.id)!;
        if (!s.has(d.a.trajectoryId) && !s.has(d.b.trajectoryId)) return roleReason.get(p.id) ?? null;
        return (
          (await exclusionReason(tx, { userId: p.id, itemId, trajectoryId: d.a.trajectoryId })) ??
          (await exclusionReason(tx, { userId: p.id, itemId, trajectoryId: d.b.trajectoryId }))
        );
      };
      const reviews: Prisma.PairReviewCreateManyInput[] = [];
      const logs: { at: Date; reviewer: Person; itemId: bigint; details: Record<string, unknown> }[] = [];
      const states = new Map<string, bigint[]>();
      const disputed: { id: bigint; at: Date }[] = [];
      for (const [n, d] of ordered.entries()) {
        const key = pairKey(d.a, d.b);
        const itemId = idOf.get(key)!;
        // The annotator a hash picks, unless their judgement would not count and the other one's would (a pair left
        // open would sit in the queues, whose batch order the end-to-end tests read).
        const first = uniformHash(SALT, "overlap", `reviewer:${key}`) < 0.5 ? who.a1 : who.a2;
        const candidates = [];
        for (const p of [first, first === who.a1 ? who.a2 : who.a1])
          candidates.push({ p, excludedReason: await excluded(p, itemId, d) });
        candidates.sort((x, y) => Number(x.excludedReason !== null) - Number(y.excludedReason !== null));
        const reviewers = candidates.slice(0, d.reviewsNeeded);
        const t = (d.a.step - run.stepFrom) / run.span;
        const at = new Date(start + n * spacing);
        let done = 0;
        let inversion = false;
        for (const { p: reviewer, excludedReason } of reviewers) {
          const h = uniformHash(SALT, "pair", `judge:${key}:${reviewer.id}`);
          const j = judge(d, t, h);
          const left = d.bOnLeft ? d.b : d.a;
          const choice: PairChoice = j.preferred === null ? "tie" : j.preferred === left ? "left" : "right";
          const order = ledgerOrder(d.a, d.b, j.preferred?.trajectoryId ?? null);
          reviews.push({
            itemId,
            reviewerId: reviewer.id,
            choice,
            preferredTrajectoryId: j.preferred?.trajectoryId ?? null,
            reason: j.reason,
            note: j.note,
            secondsSpent: 30 + Math.floor(h * 150),
            excludedReason,
            createdAt: at,
          });
          logs.push({
            at,
            reviewer,
            itemId,
            details: {
              batch_id: batchId,
              choice,
              preferred_trajectory_id: j.preferred?.trajectoryId ?? null,
              reason: j.reason,
              verdict: order.verdict,
              excluded_reason: excludedReason,
              demo: true,
            },
          });
          if (excludedReason === null) done++;
          if (order.verdict === "inversion") {
            inversion = true;
            totals.inversions++;
          }
        }
        const state = `${done}:${done >= d.reviewsNeeded ? "done" : "open"}`;
        states.set(state, [...(states.get(state) ?? []), itemId]);
        if (inversion) disputed.push({ id: itemId, at });
      }
      const created = await tx.pairReview.createManyAndReturn({
        data: reviews,
        select: { id: true, itemId: true, reviewerId: true },
      });
      const reviewId = new Map(created.map((r) => [`${r.itemId}:${r.reviewerId}`, r.id]));
      await tx.activityLog.createMany({
        data: logs.map((l) => ({
          at: l.at,
          actorId: l.reviewer.id,
          actorLabel: l.reviewer.email,
          action: "pair_review.submit",
          targetType: "audit_item",
          targetId: l.itemId.toString(),
          details: { review_id: reviewId.get(`${l.itemId}:${l.reviewer.id}`)!.toString(), ...l.details },
        })) as Prisma.ActivityLogCreateManyInput[],
      });
      for (const [state, ids] of states) {
        const [done, status] = state.split(":");
        await tx.auditItem.updateMany({
          where: { id: { in: ids } },
          data: { reviewsDone: Number(done), status: status as "done" | "open" },
        });
      }
      for (const d of disputed) await tx.auditItem.update({ where: { id: d.id }, data: { disputedAt: d.at } });
      totals.reviews = reviews.length;
    },
    { timeout: 120_000 },
  );
  return totals;
}
