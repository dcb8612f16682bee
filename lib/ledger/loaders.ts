// Page data of the rollout detail page. The caller has resolved the user; this takes the trajectory id and the
// browser's search params (for previous/next within the list the user came from) and shapes the ledger entry's
// JSON columns into what the panels show.
import { neighbours, sortValueOf } from "@/lib/ledger/browse.ts";
import { browseQuery, parseBrowseParams } from "@/lib/ledger/browse-schema.ts";
import { loadTrajectoryDetail } from "@/lib/ledger/detail.ts";
import { listSpecPointers } from "@/lib/ledger/spec-pointers.ts";
import { isPointer, resolvePointer, UNRESOLVED } from "@/lib/verifier/pointers.ts";

/** A verifier reason as the ledger stores it in ledger_entries.reasons. */
export type LedgerReason = {
  dimension?: string;
  guardrail?: string;
  code: string;
  tool?: string;
  field?: string;
  pointer?: string;
  expected?: unknown;
  actual?: unknown;
  message?: string;
};
export type LedgerGuardrailHit = { code: string; cap: number; evidence?: unknown };
export type RolloutStep = { type: string; name: string; input?: unknown; output?: unknown; status?: string };
export type SandboxWrite = { tool: string; step?: number; at?: string };
/** A must_mention of the case's spec, with its expected value resolved against the environment snapshot. */
export type MustMention = { key: string; hasExpected: boolean; expected: unknown };

type Spec = { must_mention?: { key: string; value?: unknown }[] };

/** The must_mention keys of a spec with their expected values (pointers resolved; unresolvable ones said so). */
export function mustMentionsOf(spec: unknown, snapshot: unknown): MustMention[] {
  return ((spec as Spec | null | undefined)?.must_mention ?? []).map((m) => {
    const has = m.value !== undefined;
    const v = has && isPointer(m.value) ? resolvePointer(m.value, snapshot) : m.value;
    return { key: m.key, hasExpected: has, expected: v === UNRESOLVED ? "(does not resolve)" : v };
  });
}

/** The mention reasons by must_mention key (they carry the key in `field`). */
export function mentionProblemsOf(reasons: LedgerReason[]): Record<string, string> {
  return Object.fromEntries(
    reasons
      .filter((r) => (r.code === "mention_missing" || r.code === "mention_value_mismatch") && r.field)
      .map((r) => [r.field!, r.code]),
  );
}

/**
 * Everything the rollout detail page shows, or null when the trajectory has no current ledger entry. `search` is
 * the browser's filter the user came from: a bad one only drops previous/next (the list page reports it).
 */
export async function loadTrajectoryPage(
  trajectoryId: string,
  search: URLSearchParams | Record<string, string | string[] | undefined>,
) {
  const detail = await loadTrajectoryDetail(trajectoryId);
  if (!detail) return null;
  const { entry, caseDoc } = detail;
  const reasons = (entry.reasons ?? []) as LedgerReason[];
  const rollout = entry.rollout;
  const writes = (rollout?.sandbox as { writes?: SandboxWrite[] } | null)?.writes ?? [];
  const kinds: Record<string, string> = Object.fromEntries(
    ((rollout?.registry.tools ?? []) as { name: string; kind: string }[]).map((t) => [t.name, t.kind]),
  );
  const browse = parseBrowseParams(search);
  const around = browse.ok
    ? await neighbours(browse.params, { id: entry.id, sortValue: sortValueOf(browse.params, entry) })
    : { prev: null, next: null };
  return {
    ...detail,
    reasons,
    hits: (entry.guardrails ?? []) as LedgerGuardrailHit[],
    steps: (rollout?.steps ?? []) as RolloutStep[],
    writes,
    kinds,
    mustMention: mustMentionsOf(caseDoc?.verifierSpec, caseDoc?.envSnapshot),
    mentionProblems: mentionProblemsOf(reasons),
    pointers: caseDoc ? listSpecPointers(caseDoc.verifierSpec, caseDoc.envSnapshot) : [],
    /** The browser's query to keep in links (empty when it was bad), and the neighbours within it. */
    query: browse.ok ? browseQuery(browse.params) : "",
    around,
  };
}

export type TrajectoryPageData = NonNullable<Awaited<ReturnType<typeof loadTrajectoryPage>>>;
