// Reads of the reward leaderboard: for a run (optionally a step window) or a shadow-audit batch, the audited items with
// their primary blind review — the agreement report's own items (loadAgreementItems, countedItems: only blind reviews
// count, the first is the primary one; read verdictsOnly: the leaderboard reads no claims, case slots or current
// entries) —, the ledger's reward on each as the candidate "ledger", every reward-function version's latest result on
// those rollouts (never a probed or re-run one: those are its probe and retest pairs, lib/leaderboard/reruns.ts), and
// the first counted judgement of each pair of the run's pairwise batches (the pairwise report's items, without their
// rollouts' current entries). Uncached: four statements of its own (the scope, the items' rollouts and groups, the
// versions, their results packed into one bytea per version; a fifth for the components of two rows compared), the
// results' read at once with the two reports' reads, then two for all versions' reruns. Leads, admins and
// researchers only (the callers ask for "ledger.read" first): this carries ledger and reward numbers.
import type { Db } from "@/lib/db/client.ts";
import { countedItems } from "@/lib/agreement/pairs.ts";
import { loadAgreementItems, type AgreementItem } from "@/lib/agreement/data.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { rows as rowsOf } from "@/lib/db/rows.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type {
  AuditedItem,
  Candidate,
  CandidateResult,
  LeaderboardInput,
  PairwiseJudgement,
} from "@/lib/leaderboard/input.ts";
import { RESULT_STATUSES } from "@/lib/leaderboard/input.ts";
import { loadRerunPairsOf } from "@/lib/leaderboard/reruns.ts";
import type { LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { loadPairReportItems, type PairReportItem } from "@/lib/pairwise/report-data.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";

/** Where a row's item is read: its rollout's page and its GRPO group's. */
export type ItemPlace = { trajectoryId: string; runId: string; step: number; groupId: string | null };

/** A reward-function row's function and version, for its label and its link. */
export type VersionInfo = { name: string; version: number };

export type LoadedLeaderboard =
  | {
      ok: true;
      runId: string;
      /** The scope as read: the batch's name when one is named, the step window when one is given. */
      batch: { id: number; name: string } | null;
      input: LeaderboardInput;
      /** By rollout id. */
      places: Map<string, ItemPlace>;
      versions: Map<string, VersionInfo>;
    }
  | { ok: false; status: 400 | 404; error: string };

type Scope = Pick<LeaderboardQuery, "run" | "batch" | "from" | "to" | "threshold" | "a" | "b">;

async function resolveScope(q: Scope, client: Db) {
  if (q.batch !== undefined) {
    const b = await client.auditBatch.findUnique({
      where: { id: q.batch },
      select: { id: true, name: true, runId: true, kind: true },
    });
    if (!b) return { ok: false as const, status: 404 as const, error: `batch: no audit batch #${q.batch}` };
    if (b.kind === "pairwise")
      return {
        ok: false as const,
        status: 400 as const,
        error: `batch: #${q.batch} is a pairwise batch; name a tickets batch or the run (its pairwise judgements are read with it)`,
      };
    if (q.run !== undefined && q.run !== b.runId)
      return {
        ok: false as const,
        status: 400 as const,
        error: `run: batch #${q.batch} is of run ${b.runId}, not ${q.run}`,
      };
    return { ok: true as const, runId: b.runId, batch: { id: b.id, name: b.name } };
  }
  const run = await client.run.findUnique({ where: { id: q.run! }, select: { id: true } });
  if (!run) return { ok: false as const, status: 404 as const, error: `run: no run ${q.run}` };
  return { ok: true as const, runId: run.id, batch: null };
}

const inWindow = (step: number, q: Scope) =>
  (q.from === undefined || step >= q.from) && (q.to === undefined || step <= q.to);

/** The leaderboard's input for the scope, or why there is none (an unknown run or batch). */
export async function loadLeaderboardInput(q: Scope, client: Db = readDb()): Promise<LoadedLeaderboard> {
  const scope = await resolveScope(q, client);
  if (!scope.ok) return scope;
  const { runId } = scope;
  // only the two rows compared head to head show their components (the disagreements); an id may be any ten digits
  // (the view then says there is no such row), so it is compared as a bigint
  const compared = [q.a, q.b].filter((id) => id !== undefined && id !== "ledger").map(Number);
  // the versions' results are read for the scope's audited rollouts at once with the items (not after them, for
  // their ids), and those of the items that count kept
  const [agreementItems, pairData, results] = await Promise.all([
    loadAgreementItems({ run: runId, batch: q.batch, tolerance: 0.1 }, client, { verdictsOnly: true }),
    loadPairReportItems({ run: runId, window: 500 }, client, { current: false }),
    readVersionResults(runId, q.batch, compared, client),
  ]);
  const audited = countedItems(agreementItems).filter((i) => inWindow(i.item.step, q));
  const pairs = (pairData.ok ? pairData.items : []).filter((p) => inWindow(p.step, q));
  const rollouts = await itemRollouts(
    runId,
    [...audited.map((i) => i.item.itemId), ...pairs.map((p) => p.itemId)],
    client,
  );
  const items: AuditedItem[] = [];
  const places = new Map<string, ItemPlace>();
  const ledgerResults: Record<string, CandidateResult> = {};
  for (const i of audited) {
    const r = rollouts.get(i.item.itemId.toString())!;
    items.push(auditedItem(i, r.a, r.groupId));
    places.set(r.a, { trajectoryId: i.item.trajectoryId, runId, step: i.item.step, groupId: r.groupId });
    ledgerResults[r.a] = ledgerResult(i);
  }
  const { candidates, versions } = versionCandidates(results, new Set(items.map((i) => Number(i.rolloutId))));
  const ledger: Candidate = { id: "ledger", label: "ledger", kind: "ledger", results: ledgerResults };
  const all = (await withReruns(runId, [ledger, ...candidates], client)).map((c) => {
    const t = q.threshold?.[c.id];
    return t === undefined ? c : { ...c, threshold: t };
  });
  return {
    ok: true,
    runId,
    batch: scope.batch,
    input: { items, candidates: all, pairwise: pairwiseJudgements(pairs, rollouts) },
    places,
    versions,
  };
}

/**
 * Each version's latest injection probe and test–retest on the run (Candidate.probe, Candidate.retest: per rollout,
 * its reward and the same reward re-run), so its row is flagged when the probe moves it. The ledger has none.
 */
async function withReruns(runId: string, candidates: Candidate[], client: Db): Promise<Candidate[]> {
  const versions = candidates.filter((c) => c.kind !== "ledger").map((c) => Number(c.id));
  const pairs = await loadRerunPairsOf(client, runId, versions);
  return candidates.map((c) => {
    const of = c.kind === "ledger" ? undefined : pairs.get(Number(c.id));
    if (!of) return c;
    return {
      ...c,
      ...(of.probe.length ? { probe: of.probe } : {}),
      ...(of.retest.length ? { retest: of.retest } : {}),
    };
  });
}

function auditedItem(i: AgreementItem, rolloutId: string, groupId: string | null): AuditedItem {
  const human = i.reviews[0];
  return {
    itemId: i.item.itemId.toString(),
    rolloutId,
    groupId,
    human: { verdict: human.reward >= SUCCESS_THRESHOLD ? "pass" : "fail", reward: human.reward },
    // as the agreement report's guardrail filter: the codes either side flagged
    guardrails: [...new Set<string>([...i.ledger.guardrails, ...human.guardrails])],
    category: i.category,
  };
}

/** The ledger's entry recorded on the item (the one the human shadowed), as a result: its sub-scores as components. */
function ledgerResult(i: AgreementItem): CandidateResult {
  const l = i.ledger;
  if (l.reward === null) return { reward: null, status: "error" };
  const components: Record<string, number> = {};
  for (const [k, v] of Object.entries(l.subscores)) if (v !== null) components[k] = v;
  return { reward: l.reward, status: "ok", components };
}

type RolloutRow = { item_id: string; a: string; b: string | null; group_id: string };

/** Each item's rollout (and a pair's second) with the GRPO group of its (first) rollout. */
async function itemRollouts(runId: string, itemIds: bigint[], client: Db) {
  const found = await rowsOf<RolloutRow>(
    client,
    Prisma.sql`
    select i.id::text as item_id, i.rollout_id::text as a, i.rollout_b_id::text as b, ro.group_id
      from audit_items i join rollouts ro on ro.run_id = i.run_id and ro.id = i.rollout_id
     where i.run_id = ${runId} and i.id = any(${itemIds.map(String)}::bigint[])`,
  );
  return new Map(found.map((r) => [r.item_id, { a: r.a, b: r.b, groupId: r.group_id }]));
}

/** A compared version's latest result's components by rollout (the head to head's disagreements show them). */
type ComponentsRow = { version_id: number; rollout_id: string; components: { name: string; value: number | null }[] };
type PackedRow = { version_id: number; packed: Uint8Array };
type VersionRow = { id: number; name: string; version: number; kinds: string[] };

/**
 * One result in a version's packed results: six float8 in network order (float8send, the double's own bits) — its
 * rollout, its id (both below 2^53), its status (its place in RESULT_STATUSES from 1, 0 for any other), its reward
 * (NaN for null), its latency and its cost. One bytea per version, read as numbers straight from its bytes: 200,000
 * results read as that many pg rows were most of the page's uncached read at 10,000 items and 20 versions, and as a
 * text split into fields, 1.3 million strings to split, parse and collect (docs/benchmarks.md).
 */
const PACKED_RESULT = Prisma.sql`float8send(x.rollout_id::float8) || float8send(x.id::float8)
  || float8send(coalesce(array_position(${[...RESULT_STATUSES]}::text[], x.status), 0)::float8)
  || float8send(coalesce(x.reward, 'NaN')) || float8send(x.latency_ms) || float8send(x.cost)`;
const PACKED_BYTES = 6 * 8;

/**
 * The versions run on the run and their plain results on the rollouts of the scope's audit items (the run's, or one
 * batch's). Statements at once: the versions of the run's reward runs (a few rows, each document's kinds read once);
 * the results packed (PACKED_RESULT); and the components of the `compared` versions' latest results only: moved and
 * parsed for every result (a judge's carries its prompt), they cost more still.
 */
async function readVersionResults(runId: string, batch: number | undefined, compared: number[], client: Db) {
  const ofRun = Prisma.sql`select distinct rr.version_id from reward_runs rr where rr.run_id = ${runId}`;
  const audited = Prisma.sql`select i.rollout_id from audit_items i
         where i.run_id = ${runId} ${batch === undefined ? Prisma.empty : Prisma.sql`and i.batch_id = ${batch}::int`}`;
  const plain = Prisma.sql`x.run_id = ${runId} and x.version_id in (${ofRun}) and x.rollout_id in (${audited})
         and x.probe_line is null and x.paired_with is null`;
  const [versionRows, packed, withComponents] = await Promise.all([
    rowsOf<VersionRow>(
      client,
      Prisma.sql`
      select fv.id, f.name, fv.version,
             array(select distinct c->>'kind' from jsonb_array_elements(fv.body->'components') c) as kinds
        from reward_function_versions fv join reward_functions f on f.id = fv.function_id
       where fv.id in (${ofRun})`,
    ),
    rowsOf<PackedRow>(
      client,
      Prisma.sql`
      select x.version_id, string_agg(${PACKED_RESULT}, ''::bytea) as packed
        from reward_results x where ${plain}
       group by x.version_id`,
    ),
    compared.length
      ? rowsOf<ComponentsRow>(
          client,
          Prisma.sql`
          select distinct on (x.version_id, x.rollout_id) x.version_id, x.rollout_id::text as rollout_id, x.components
            from reward_results x where x.version_id = any(${compared}::bigint[]) and ${plain}
           order by x.version_id, x.rollout_id, x.id desc`,
        )
      : Promise.resolve([]),
  ]);
  return { versionRows, packed, withComponents };
}

/**
 * One candidate per version with a result on any of the `rollouts` (the audited items that count, by their ids'
 * numbers: below 2^53), with its latest result on each.
 */
function versionCandidates(read: Awaited<ReturnType<typeof readVersionResults>>, rollouts: ReadonlySet<number>) {
  const byVersion = new Map(read.packed.map((r) => [r.version_id, unpackResults(r.packed, rollouts)]));
  for (const r of read.withComponents) {
    const result = byVersion.get(r.version_id)?.[r.rollout_id];
    if (result) result.components = namedValues(r.components);
  }
  const candidates: Candidate[] = [];
  const versions = new Map<string, VersionInfo>();
  for (const v of read.versionRows.sort((a, b) => a.id - b.id)) {
    const results = byVersion.get(v.id);
    if (!results) continue;
    const id = String(v.id);
    candidates.push({ id, label: `${v.name} v${v.version}`, kind: kindOf(v.kinds), results });
    versions.set(id, { name: v.name, version: v.version });
  }
  return { candidates, versions };
}

/**
 * The latest result (the largest id) on each of the `rollouts` in a version's packed results (PACKED_RESULT), keyed
 * by the rollout's id (its number as a key is its decimal text); null when there is none.
 */
function unpackResults(packed: Uint8Array, rollouts: ReadonlySet<number>): Record<string, CandidateResult> | null {
  const bytes = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const results: Record<string, CandidateResult> = {};
  // by the rollout's number, not its id's text: no string is hashed or parsed per result
  const ids = new Map<number, number>();
  for (let at = 0; at + PACKED_BYTES <= bytes.byteLength; at += PACKED_BYTES) {
    const rollout = bytes.getFloat64(at);
    if (!rollouts.has(rollout)) continue;
    const id = bytes.getFloat64(at + 8);
    const seen = ids.get(rollout);
    if (seen !== undefined && seen > id) continue;
    ids.set(rollout, id);
    // an unknown status (the table's check refuses one) reaches checkLeaderboardInput, which names it
    const status = (RESULT_STATUSES[bytes.getFloat64(at + 16) - 1] ?? "unknown") as CandidateResult["status"];
    const reward = bytes.getFloat64(at + 24);
    // keyed by the number: the same key as the rollout's id, its decimal text
    results[rollout] = {
      reward: status === "ok" && !Number.isNaN(reward) ? reward : null,
      status,
      latencyMs: bytes.getFloat64(at + 32),
      costUsd: bytes.getFloat64(at + 40),
    };
  }
  return ids.size ? results : null;
}

function namedValues(components: ComponentsRow["components"]): Record<string, number> {
  return Object.fromEntries(components.filter((c) => c.value !== null).map((c) => [c.name, c.value as number]));
}

/** A version's kind on the leaderboard: a judge if any component is one, else code if any is, else a rule. */
function kindOf(kinds: readonly string[]): Candidate["kind"] {
  return kinds.includes("judge") ? "judge" : kinds.includes("code") ? "code" : "rule";
}

/**
 * The first counted judgement of each judged pair (the pairwise report's primary one), left being the pair's own
 * rollout and right its second.
 */
function pairwiseJudgements(
  pairs: readonly PairReportItem[],
  rollouts: Map<string, { a: string; b: string | null; groupId: string }>,
): PairwiseJudgement[] {
  const out: PairwiseJudgement[] = [];
  for (const p of pairs) {
    const j = p.judgements.find((x) => x.excludedReason === null);
    const r = rollouts.get(p.itemId.toString());
    if (!j || !r || r.b === null) continue;
    const preferred =
      j.preferredTrajectoryId === null ? "tie" : j.preferredTrajectoryId === p.a.trajectoryId ? "left" : "right";
    out.push({ groupId: r.groupId, left: r.a, right: r.b, preferred, inclusionProb: p.inclusionProb });
  }
  return out;
}

/** Whether any reward function was run on the run (035's index on reward_runs.run_id). */
export async function runHasRewardRuns(runId: string, client: Db = readDb()): Promise<boolean> {
  const found = await rowsOf<{ one: number }>(
    client,
    Prisma.sql`select 1 as one from reward_runs where run_id = ${runId} limit 1`,
  );
  return found.length > 0;
}
