// Reads of the reward leaderboard: for a run (optionally a step window) or a shadow-audit batch, the audited items with
// their primary blind review — the agreement report's own items (loadAgreementItems, countedItems: only blind reviews
// count, the first is the primary one; read verdictsOnly: the leaderboard reads no claims, case slots or current
// entries) —, the ledger's reward on each as the candidate "ledger", every reward-function version's latest result on
// those rollouts (never a probed or re-run one: those are its probe and retest pairs, lib/leaderboard/reruns.ts), and
// the first counted judgement of each pair of the run's pairwise batches (the pairwise report's, loadPrimaryJudgements).
// Uncached: the scope, then every other statement at once — the two reports' reads, the reviewed items' rollouts and
// groups, the versions, their results packed into one bytea per version (a further one for the components of two rows
// compared), and as soon as the versions are known, two for their reruns. Every candidate's results are columns over
// the items' rollouts (ResultColumns). Leads, admins and researchers only (the callers ask for "ledger.read" first):
// this carries ledger and reward numbers.
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
  RolloutSlots,
} from "@/lib/leaderboard/input.ts";
import { NOT_RUN, RESULT_STATUSES, ResultColumns, rolloutSlots, UNKNOWN_STATUS } from "@/lib/leaderboard/input.ts";
import { loadRerunPairsOf } from "@/lib/leaderboard/reruns.ts";
import type { LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { loadPrimaryJudgements, rolloutGroups, type PrimaryJudgement } from "@/lib/pairwise/report-data.ts";
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
  // every statement at once: the versions' results for the scope's audited rollouts, and those rollouts, are read
  // with the items (not after them, for their ids), and those of the items that count kept; the versions' reruns as
  // soon as the versions are known
  const versionRows = readVersions(runId, client);
  const [agreementItems, judged, results, rollouts, reruns] = await Promise.all([
    loadAgreementItems({ run: runId, batch: q.batch, tolerance: 0.1 }, client, { verdictsOnly: true }),
    loadPrimaryJudgements(runId, client),
    readVersionResults(runId, q.batch, compared, client),
    reviewedRollouts(runId, q.batch, client),
    versionRows.then((vs) =>
      loadRerunPairsOf(
        client,
        runId,
        vs.map((v) => v.id),
      ),
    ),
  ]);
  const audited = countedItems(agreementItems).filter((i) => inWindow(i.item.step, q));
  const items: AuditedItem[] = [];
  const places = new Map<string, ItemPlace>();
  for (const i of audited) {
    const r = rollouts.get(i.item.itemId)!;
    items.push(auditedItem(i, r.rolloutId, r.groupId));
    places.set(r.rolloutId, { trajectoryId: i.item.trajectoryId, runId, step: i.item.step, groupId: r.groupId });
  }
  // every candidate's results laid over the items' rollouts, in their order
  const slots = rolloutSlots(items.map((i) => i.rolloutId));
  const ledgerResults = new ResultColumns(slots);
  audited.forEach((i, k) => ledgerResults.set(slots.slotOf.get(items[k].rolloutId)!, ledgerResult(i)));
  const { candidates, versions } = versionCandidates(await versionRows, results, slots);
  const ledger: Candidate = { id: "ledger", label: "ledger", kind: "ledger", results: ledgerResults };
  const all = withReruns([ledger, ...candidates], reruns).map((c) => {
    const t = q.threshold?.[c.id];
    return t === undefined ? c : { ...c, threshold: t };
  });
  const pairwise = judged.filter((p) => inWindow(p.step, q)).map(pairwiseJudgement);
  return {
    ok: true,
    runId,
    batch: scope.batch,
    input: { items, candidates: all, pairwise },
    places,
    versions,
  };
}

/**
 * Each version's latest injection probe and test–retest on the run (Candidate.probe, Candidate.retest: per rollout,
 * its reward and the same reward re-run; loadRerunPairsOf), so its row is flagged when the probe moves it. The ledger
 * has none.
 */
function withReruns(candidates: Candidate[], pairs: Awaited<ReturnType<typeof loadRerunPairsOf>>): Candidate[] {
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

type ItemRolloutRow = { item_id: bigint; rollout_id: string };

/**
 * The rollout of each reviewed item of the scope (the run's, or one batch's), with its GRPO group: read by the scope,
 * at once with the items, rather than by the items' ids after them. Two statements, the items (the audit's tables)
 * then their rollouts' groups (the run's rollouts): on Citus (docs/scale.md) the audit's tables stay on the
 * coordinator and the rollouts are on the run's worker, and one statement joining them cannot be planned.
 */
async function reviewedRollouts(runId: string, batch: number | undefined, client: Db) {
  const items = await rowsOf<ItemRolloutRow>(
    client,
    Prisma.sql`
    select i.id as item_id, i.rollout_id::text as rollout_id from audit_items i
     where i.run_id = ${runId} ${batch === undefined ? Prisma.empty : Prisma.sql`and i.batch_id = ${batch}::int`}
       and exists (select 1 from reviews r where r.item_id = i.id)`,
  );
  const groups = await rolloutGroups(
    runId,
    items.map((i) => i.rollout_id),
    client,
  );
  const out = new Map<bigint, { rolloutId: string; groupId: string }>();
  for (const i of items) {
    const groupId = groups.get(i.rollout_id);
    if (groupId !== undefined) out.set(i.item_id, { rolloutId: i.rollout_id, groupId });
  }
  return out;
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

/** The versions of the run's reward runs (each document's kinds read once). */
const versionsOfRun = (runId: string) =>
  Prisma.sql`select distinct rr.version_id from reward_runs rr where rr.run_id = ${runId}`;

/** The versions run on the run (a few rows). */
function readVersions(runId: string, client: Db): Promise<VersionRow[]> {
  return rowsOf<VersionRow>(
    client,
    Prisma.sql`
    select fv.id, f.name, fv.version,
           array(select distinct c->>'kind' from jsonb_array_elements(fv.body->'components') c) as kinds
      from reward_function_versions fv join reward_functions f on f.id = fv.function_id
     where fv.id in (${versionsOfRun(runId)})`,
  );
}

/**
 * The plain results of the versions run on the run, on the rollouts of the scope's audit items (the run's, or one
 * batch's). Two statements at once: the results packed (PACKED_RESULT); and the components of the `compared`
 * versions' latest results only: moved and parsed for every result (a judge's carries its prompt), they cost more
 * still.
 */
async function readVersionResults(runId: string, batch: number | undefined, compared: number[], client: Db) {
  const ofRun = versionsOfRun(runId);
  const audited = Prisma.sql`select i.rollout_id from audit_items i
         where i.run_id = ${runId} ${batch === undefined ? Prisma.empty : Prisma.sql`and i.batch_id = ${batch}::int`}`;
  const plain = Prisma.sql`x.run_id = ${runId} and x.version_id in (${ofRun}) and x.rollout_id in (${audited})
         and x.probe_line is null and x.paired_with is null`;
  const [packed, withComponents] = await Promise.all([
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
  return { packed, withComponents };
}

/**
 * One candidate per version with a result on any of the `rollouts` (the audited items' that count), with its latest
 * result on each.
 */
function versionCandidates(
  versionRows: VersionRow[],
  read: Awaited<ReturnType<typeof readVersionResults>>,
  rollouts: RolloutSlots,
) {
  const slotOf = slotByNumber(rollouts);
  const byVersion = new Map(read.packed.map((r) => [r.version_id, unpackResults(r.packed, rollouts, slotOf)]));
  for (const r of read.withComponents) {
    const results = byVersion.get(r.version_id);
    const slot = rollouts.slotOf.get(r.rollout_id);
    if (results && slot !== undefined && results.status[slot] !== NOT_RUN)
      results.components.set(slot, namedValues(r.components));
  }
  const candidates: Candidate[] = [];
  const versions = new Map<string, VersionInfo>();
  for (const v of versionRows.sort((a, b) => a.id - b.id)) {
    const results = byVersion.get(v.id);
    if (!results) continue;
    const id = String(v.id);
    candidates.push({ id, label: `${v.name} v${v.version}`, kind: kindOf(v.kinds), results });
    versions.set(id, { name: v.name, version: v.version });
  }
  return { candidates, versions };
}

/**
 * The slot of a rollout by its id's number (−1: none; the ids are below 2^53), so that no string is hashed or parsed
 * per result: a table over the ids' range where they are dense enough (a run's rollouts are ingested in blocks), a
 * map otherwise (a map keyed by numbers hashes each of the 200,000 probes).
 */
function slotByNumber(rollouts: RolloutSlots): (rollout: number) => number {
  const numbers = rollouts.ids.map(Number);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const n of numbers) {
    min = Math.min(min, n);
    max = Math.max(max, n);
  }
  if (numbers.length > 0 && max - min < 16 * numbers.length + 65_536) {
    const table = new Int32Array(max - min + 1).fill(-1);
    numbers.forEach((n, slot) => (table[n - min] = slot));
    return (n) => (n >= min && n <= max ? table[n - min] : -1);
  }
  const map = new Map(numbers.map((n, slot) => [n, slot]));
  return (n) => map.get(n) ?? -1;
}

/**
 * The latest result (the largest id) on each of the `rollouts` (slotOf: by the rollout's number) in a version's
 * packed results (PACKED_RESULT), as columns; null when there is none.
 */
function unpackResults(
  packed: Uint8Array,
  rollouts: RolloutSlots,
  slotOf: (rollout: number) => number,
): ResultColumns | null {
  const bytes = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const results = new ResultColumns(rollouts);
  // the id of the result in each slot, to keep the latest
  const ids = new Float64Array(rollouts.ids.length);
  let found = 0;
  for (let at = 0; at + PACKED_BYTES <= bytes.byteLength; at += PACKED_BYTES) {
    const slot = slotOf(bytes.getFloat64(at));
    if (slot < 0) continue;
    const id = bytes.getFloat64(at + 8);
    if (results.status[slot] === NOT_RUN) found++;
    else if (ids[slot] > id) continue;
    ids[slot] = id;
    // an unknown status (the table's check refuses one) reaches checkLeaderboardInput, which names it
    const code = bytes.getFloat64(at + 16);
    results.status[slot] = code >= 1 && code <= RESULT_STATUSES.length ? code : UNKNOWN_STATUS;
    // a reward only on an ok result, as the table's check has it
    results.reward[slot] = RESULT_STATUSES[code - 1] === "ok" ? bytes.getFloat64(at + 24) : Number.NaN;
    results.latencyMs[slot] = bytes.getFloat64(at + 32);
    results.costUsd[slot] = bytes.getFloat64(at + 40);
  }
  return found ? results : null;
}

function namedValues(components: ComponentsRow["components"]): Record<string, number> {
  return Object.fromEntries(components.filter((c) => c.value !== null).map((c) => [c.name, c.value as number]));
}

/** A version's kind on the leaderboard: a judge if any component is one, else code if any is, else a rule. */
function kindOf(kinds: readonly string[]): Candidate["kind"] {
  return kinds.includes("judge") ? "judge" : kinds.includes("code") ? "code" : "rule";
}

/**
 * A judged pair's first counted judgement (the pairwise report's primary one), left being the pair's own rollout and
 * right its second.
 */
function pairwiseJudgement(p: PrimaryJudgement): PairwiseJudgement {
  const preferred =
    p.preferredTrajectoryId === null ? "tie" : p.preferredTrajectoryId === p.trajectoryA ? "left" : "right";
  return { groupId: p.groupId, left: p.rolloutA, right: p.rolloutB, preferred, inclusionProb: p.inclusionProb };
}

/** Whether any reward function was run on the run (035's index on reward_runs.run_id). */
export async function runHasRewardRuns(runId: string, client: Db = readDb()): Promise<boolean> {
  const found = await rowsOf<{ one: number }>(
    client,
    Prisma.sql`select 1 as one from reward_runs where run_id = ${runId} limit 1`,
  );
  return found.length > 0;
}
