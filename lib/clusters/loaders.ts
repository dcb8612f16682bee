// Assembles what the page, the token API and the CLI show: the clustering report (data.ts → report.ts), the
// leads' triage states, and per shown cluster its lowest-reward examples and most common reply phrasings.
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { primaryOf, readDb } from "@/lib/db/read-client.ts";
import { binSteps } from "@/lib/clusters/bins.ts";
import { cachedReport } from "@/lib/clusters/cache.ts";
import { readBlindSpotFacts, readLevelOneFacts, readSignatureSample, readWindowSteps } from "@/lib/clusters/data.ts";
import {
  type ClusterExample,
  type ClusterRun,
  type ClusterStateView,
  type ClusterTicket,
  listClusterExamples,
  listClusterRuns,
  listClusterStates,
  listClusterTickets,
  runExists,
  sampleClusterReplies,
} from "@/lib/clusters/detail-data.ts";
import { BLIND_SPOT_KEY, type ClusterKey, clusterLabel, parseKey } from "@/lib/clusters/keys.ts";
import { topPhrasings, type PhrasingSummary } from "@/lib/clusters/phrasings.ts";
import {
  buildReport,
  type CategoryPart,
  type ClusterReport,
  type ClusterStats,
  type LevelOne,
  type LevelTwo,
} from "@/lib/clusters/report.ts";
import { clusterPageSchema, DEFAULT_THRESHOLD, type ClusterWindow } from "@/lib/clusters/schema.ts";
import { fieldMessages } from "@/lib/result.ts";
import { paramsRecord } from "@/lib/ledger/browse-schema.ts";
import { defaultRun } from "@/lib/runs/location.ts";

/** Replies per cluster grouped into phrasings (the bound keeps MinHash at a few tens of ms per cluster). */
export const REPLY_SAMPLE = 2000;
export const EXAMPLES = 5;

/** The clustering of a window: level 1, co-fired sets and blind spot exact, levels 2–3 on a bounded sample. */
export async function computeClusterReport(w: ClusterWindow, client: PrismaClient = readDb()): Promise<ClusterReport> {
  const { bins, edges } = binSteps(await readWindowSteps(w, client));
  // Three independent aggregates on three pooled connections: the wall time is the slowest, not the sum.
  const [levelOne, signatures, blindSpot] = await Promise.all([
    readLevelOneFacts(w, edges, client),
    readSignatureSample(w, edges, client),
    readBlindSpotFacts(w, edges, client),
  ]);
  return buildReport({ runId: w.runId, threshold: w.threshold, bins, levelOne, signatures, blindSpot });
}

/** computeClusterReport, reused while the run's rollups have not changed (cache.ts). */
export function clusterReport(w: ClusterWindow, client: PrismaClient = readDb()): Promise<ClusterReport> {
  return cachedReport(client, w, () => computeClusterReport(w, client));
}

export type FoundCluster = {
  key: ClusterKey;
  stats: ClusterStats | null;
  /** Level 3 rows carry no trend; they are found as a CategoryPart. */
  part: CategoryPart | null;
  levelOne: LevelOne | null;
  levelTwo: LevelTwo | null;
};

/** A cluster of the report by key, with its level-1 and level-2 ancestors (null parts when it is empty here). */
export function findCluster(report: ClusterReport, key: string): FoundCluster | null {
  const k = parseKey(key);
  if (!k) return null;
  const found: FoundCluster = { key: k, stats: null, part: null, levelOne: null, levelTwo: null };
  if (k.kind === "blind_spot") return { ...found, stats: report.blindSpot };
  if (k.kind === "cofired") return { ...found, stats: report.cofired.find((c) => c.key === key) ?? null };
  found.levelOne = report.clusters.find((c) => c.l1 === k.l1) ?? null;
  if (k.kind === "level1") return { ...found, stats: found.levelOne };
  const l2key = key.split("|").slice(0, 2).join("|");
  found.levelTwo = found.levelOne?.signatures.find((s) => s.key === l2key) ?? null;
  if (k.kind === "level2") return { ...found, stats: found.levelTwo };
  return { ...found, part: found.levelTwo?.categories.find((c) => c.key === key) ?? null };
}

export type ClusterExtras = { examples: ClusterExample[]; phrasings: PhrasingSummary | null };

/** Examples (lowest reward first) and, if asked, reply phrasings of the given clusters, concurrently. */
export async function loadClusterExtras(
  w: ClusterWindow,
  report: ClusterReport,
  keys: readonly string[],
  opts: { phrasings: boolean; examples?: number },
  client: PrismaClient = readDb(),
): Promise<Map<string, ClusterExtras>> {
  const entries = await Promise.all(
    keys.map(async (key): Promise<[string, ClusterExtras]> => {
      const found = findCluster(report, key);
      if (!found) return [key, { examples: [], phrasings: null }];
      const size = found.stats?.size ?? found.part?.size ?? null;
      const [examples, replies] = await Promise.all([
        listClusterExamples(w, found.key, opts.examples ?? EXAMPLES, client),
        opts.phrasings ? sampleClusterReplies(w, found.key, size, REPLY_SAMPLE, client) : Promise.resolve(null),
      ]);
      return [key, { examples, phrasings: replies ? topPhrasings(replies) : null }];
    }),
  );
  return new Map(entries);
}

export type FullReport = {
  report: ClusterReport;
  states: Map<string, ClusterStateView>;
  extras: Map<string, ClusterExtras>;
};

/** What the API and the CLI print: the report, every level-1 cluster's and the blind spot's extras, the states. */
export async function loadFullReport(
  w: ClusterWindow,
  opts: { phrasings: boolean },
  client: PrismaClient = readDb(),
): Promise<FullReport> {
  const [report, states] = await Promise.all([clusterReport(w, client), listClusterStates(w.runId, primaryOf(client))]);
  const keys = [BLIND_SPOT_KEY, ...report.clusters.map((c) => c.key)];
  const extras = await loadClusterExtras(w, report, keys, opts, client);
  return { report, states, extras };
}

/** Pinned clusters first (in priority order), then the rest in priority order. */
export function withPinsFirst<T extends { key: string }>(
  ranked: readonly T[],
  states: ReadonlyMap<string, ClusterStateView>,
): T[] {
  const pinned = ranked.filter((c) => states.get(c.key)?.pinned);
  return [...pinned, ...ranked.filter((c) => !states.get(c.key)?.pinned)];
}

export type ClustersPage = {
  runs: ClusterRun[];
  /** null when there is no run yet. */
  window: ClusterWindow | null;
  report: ClusterReport | null;
  states: Map<string, ClusterStateView>;
  /** The drilled-into cluster (URL param c), found in this window's report or not. */
  selected: { key: string; found: FoundCluster | null; extras: ClusterExtras } | null;
  blindSpot: ClusterExtras | null;
  errors: string[];
};

/**
 * Page data of /clusters from its URL params: run and window (default: the run the user last looked at, `lastRun`,
 * else the newest run with rollouts; all steps; 0.5).
 */
export async function loadClustersPage(
  search: Record<string, string | string[] | undefined>,
  opts: { lastRun?: string | null } = {},
  client: PrismaClient = readDb(),
): Promise<ClustersPage> {
  const record = paramsRecord(search);
  const parsed = clusterPageSchema.safeParse(record);
  const errors = parsed.success ? [] : fieldMessages(parsed.error);
  // A bad window is reported and the whole run shown instead, but on the run that was asked for.
  const p = parsed.success ? parsed.data : { view: "bars" as const, run: record.run };
  const runs = await listClusterRuns(client);
  const run = defaultRun(runs, { asked: p.run, lastRun: opts.lastRun }, (r) => r.rollouts > 0);
  if (p.run && run?.id !== p.run) errors.push(`run: there is no run ${JSON.stringify(p.run)}`);
  if (!run) return { runs, window: null, report: null, states: new Map(), selected: null, blindSpot: null, errors };
  const w: ClusterWindow = {
    runId: run.id,
    from: p.step_from,
    to: p.step_to,
    threshold: p.threshold ?? DEFAULT_THRESHOLD,
  };
  // Triage states from the primary: the page right after a lead pins or dismisses a cluster shows that change.
  const [report, states] = await Promise.all([clusterReport(w, client), listClusterStates(run.id, primaryOf(client))]);
  const keys = [BLIND_SPOT_KEY, ...(p.c && p.c !== BLIND_SPOT_KEY ? [p.c] : [])];
  const extras = await loadClusterExtras(w, report, keys, { phrasings: true }, client);
  const selected = p.c ? { key: p.c, found: findCluster(report, p.c), extras: extras.get(p.c)! } : null;
  return { runs, window: w, report, states, selected, blindSpot: extras.get(BLIND_SPOT_KEY)!, errors };
}

export type BulkFixPage = {
  window: ClusterWindow | null;
  clusterKey: string | null;
  label: string | null;
  /** The cluster's tickets now, most members first (read on the primary: right after an Apply it is smaller). */
  tickets: ClusterTicket[];
  members: number;
  errors: string[];
};

/** Page data of /clusters/fix from its URL params: the window (run required) and the cluster (c). */
export async function loadBulkFixPage(
  search: Record<string, string | string[] | undefined>,
  client: PrismaClient = readDb(),
): Promise<BulkFixPage> {
  const none = { window: null, clusterKey: null, label: null, tickets: [], members: 0 };
  const parsed = clusterPageSchema.safeParse(paramsRecord(search));
  if (!parsed.success) return { ...none, errors: fieldMessages(parsed.error) };
  const p = parsed.data;
  const key = p.c ? parseKey(p.c) : null;
  if (!p.run || !key || !p.c)
    return {
      ...none,
      errors: [...(p.run ? [] : ["run: is required"]), ...(key ? [] : ["c: name the cluster to fix"])],
    };
  const primary = primaryOf(client);
  if (!(await runExists(p.run, primary))) return { ...none, errors: [`run: there is no run ${JSON.stringify(p.run)}`] };
  const w: ClusterWindow = {
    runId: p.run,
    from: p.step_from,
    to: p.step_to,
    threshold: p.threshold ?? DEFAULT_THRESHOLD,
  };
  const tickets = await listClusterTickets(w, key, primary);
  return {
    window: w,
    clusterKey: p.c,
    label: clusterLabel(key),
    tickets,
    members: tickets.reduce((n, t) => n + t.rollouts, 0),
    errors: [],
  };
}
