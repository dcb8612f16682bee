// Reads of the score-change marks (migration 024) for the run page's charts: each spec or config fix whose re-score
// gave entries of the run another reward, with the steps it changed and the label the charts draw.
import { db, type Db } from "@/lib/db/client.ts";
import { DEFAULT_CONFIG, configHash } from "@/lib/verifier/config.ts";

export type ScoreChangeMark = {
  id: string;
  kind: "case_version" | "config";
  /** "spec fix T-123 v2, 14 entries", "config strict v3, 1,204 entries". */
  label: string;
  entries: number;
  stepMin: number;
  stepMax: number;
  /** The steps it changed, in order, with how many entries each; null when it changed too many to list. */
  steps: { step: number; entries: number }[] | null;
  at: Date;
};

/** A chart marks at most this many (the latest); a run is fixed a handful of times. */
export const MAX_MARKS = 50;

const n = (x: number) => x.toLocaleString("en-US");

/** The run's marks that overlap [from, to], oldest first (the latest MAX_MARKS). */
export async function listScoreChangeMarks(
  runId: string,
  range: { from: number; to: number },
  client: Db = db(),
): Promise<ScoreChangeMark[]> {
  const rows = await client.scoreChangeMark.findMany({
    where: { runId, stepMax: { gte: range.from }, stepMin: { lte: range.to } },
    orderBy: { id: "desc" },
    take: MAX_MARKS,
  });
  const hashes = [...new Set(rows.map((r) => r.configHash).filter((h): h is string => h !== null))];
  const configs = hashes.length
    ? await client.verifierConfig.findMany({
        where: { hash: { in: hashes } },
        select: { hash: true, name: true, version: true },
      })
    : [];
  const defaultHash = configHash(DEFAULT_CONFIG);
  const configName = (hash: string) => {
    if (hash === defaultHash) return "the default config";
    const c = configs.find((x) => x.hash === hash);
    return c ? `config ${c.name} v${c.version}` : `config ${hash.replace(/^sha256:/, "").slice(0, 12)}`;
  };
  return rows.reverse().map((r) => ({
    id: r.id.toString(),
    kind: r.kind,
    label: `${r.kind === "case_version" ? `spec fix ${r.ticketId} v${r.caseVersion}` : configName(r.configHash!)}, ${n(r.entries)} ${r.entries === 1 ? "entry" : "entries"}`,
    entries: r.entries,
    stepMin: r.stepMin,
    stepMax: r.stepMax,
    steps: Array.isArray(r.stepCounts)
      ? (r.stepCounts as [number, number][]).map(([step, entries]) => ({ step, entries }))
      : null,
    at: r.createdAt,
  }));
}
