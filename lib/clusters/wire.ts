// The cluster report on the wire (token API and `verity clusters --json`): snake_case like every format of
// formats.md, numbers rounded to 6 decimals, trends as per-bin shares. Pure.
import type { ClusterStateView } from "@/lib/clusters/detail-data.ts";
import { browserHref, parseKey } from "@/lib/clusters/keys.ts";
import type { ClusterExtras, FullReport } from "@/lib/clusters/loaders.ts";
import type { CategoryPart, ClusterStats } from "@/lib/clusters/report.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";

const r6 = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1e6) / 1e6;
// Slopes are shares per step (1e-5 = +1 point per 1,000 steps): keep them in significant digits, not 6 decimals.
const sig = (x: number | null) => (x === null ? null : Number(x.toPrecision(6)));

function state(s: ClusterStateView | undefined) {
  return s
    ? {
        pinned: s.pinned,
        status: s.status,
        note: s.note,
        updated_at: s.updatedAt.toISOString(),
        updated_by: s.updatedBy,
      }
    : { pinned: false, status: "open", note: "", updated_at: null, updated_by: null };
}

function extrasWire(e: ClusterExtras | undefined) {
  if (!e) return {};
  return {
    examples: e.examples.map((x) => ({
      trajectory_id: x.trajectoryId,
      step: x.step,
      ticket_id: x.ticketId,
      reward: x.reward,
      raw_reward: x.rawReward,
    })),
    ...(e.phrasings
      ? {
          phrasings: {
            sampled: e.phrasings.sampled,
            groups: e.phrasings.phrasings.map((p) => ({
              text: p.text,
              count: p.count,
              share: r6(p.share),
              example: p.exampleTrajectoryId,
            })),
          },
        }
      : {}),
  };
}

function statsWire(w: ClusterWindow, c: ClusterStats) {
  const k = parseKey(c.key);
  return {
    key: c.key,
    label: c.label,
    size: c.size,
    estimated: c.estimated,
    share: r6(c.share),
    tickets: c.tickets,
    mean_reward: r6(c.meanReward),
    removed_by_cap: r6(c.removedByCap),
    trend: {
      shares: c.trend.shares.map(r6),
      slope_per_step: sig(c.trend.slope),
      early: r6(c.trend.early),
      late: r6(c.trend.late),
    },
    priority: c.priority
      ? { score: r6(c.priority.score), gap: r6(c.priority.gap), growth: r6(c.priority.growth) }
      : null,
    trajectories: k ? browserHref(w, k) : null,
  };
}

function partWire(p: CategoryPart) {
  return {
    key: p.key,
    category: p.category,
    size: p.size,
    estimated: p.estimated,
    share: r6(p.share),
    of_parent: r6(p.ofParent),
    mean_reward: r6(p.meanReward),
  };
}

export function reportToWire(w: ClusterWindow, full: FullReport) {
  const { report, states, extras } = full;
  return {
    kind: "cluster_report",
    run_id: report.runId,
    step_from: report.from,
    step_to: report.to,
    threshold: report.threshold,
    rollouts: report.rollouts,
    population: report.population,
    unscored: report.unscored,
    bins: report.bins.map((b) => ({ from: b.from, to: b.to, rollouts: b.rollouts })),
    blind_spot: {
      ...statsWire(w, report.blindSpot),
      ...extrasWire(extras.get(report.blindSpot.key)),
      categories: report.blindSpot.categories.map(partWire),
      state: state(states.get(report.blindSpot.key)),
    },
    clusters: report.clusters.map((c, rank) => ({
      rank: rank + 1,
      ...statsWire(w, c),
      ...extrasWire(extras.get(c.key)),
      state: state(states.get(c.key)),
      signature_sample_rate: r6(c.sampleRate),
      categories: c.categories.map(partWire),
      signatures: c.signatures.map((s) => ({
        ...statsWire(w, s),
        code: s.signature.code,
        tool: s.signature.tool,
        field: s.signature.field,
        of_parent: r6(s.ofParent),
        categories: s.categories.map(partWire),
      })),
    })),
    cofired: report.cofired.map((c) => ({ ...statsWire(w, c), codes: c.codes })),
    guardrails: report.guardrails.map((g) => ({
      code: g.code,
      size: g.size,
      share: r6(g.share),
      deciding: g.deciding,
      trend: {
        shares: g.trend.shares.map(r6),
        slope_per_step: sig(g.trend.slope),
        early: r6(g.trend.early),
        late: r6(g.trend.late),
      },
    })),
  };
}
