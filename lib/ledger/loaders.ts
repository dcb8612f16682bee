// Page data of the rollout detail page and of the group page. The caller has resolved the user; the detail page's
// loader takes the trajectory id and the browser's search params (for previous/next within the list the user came
// from) and shapes the ledger entry's JSON columns into what the panels show.
import { neighbours, sortValueOf } from "@/lib/ledger/browse.ts";
import { browseQuery, parseBrowseParams } from "@/lib/ledger/browse-schema.ts";
import { loadGroup, loadTrajectoryDetail, type GroupAddress } from "@/lib/ledger/detail.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { listSpecPointers } from "@/lib/ledger/spec-pointers.ts";
import {
  clipJson,
  textWindow,
  windowOf,
  windowStart,
  withoutWindowParams,
  type Window,
} from "@/lib/ledger/page-window.ts";
import { isPointer, resolvePointer, UNRESOLVED } from "@/lib/verifier/pointers.ts";
import { mean, populationStd } from "@/lib/stats/descriptive.ts";
import { groupAdvantage } from "@/lib/stats/trend.ts";
import type { Reason } from "@/lib/verifier/schema.ts";

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
export function mentionProblemsOf(reasons: readonly Pick<Reason, "code" | "field">[]): Record<string, string> {
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
  const raw = search instanceof URLSearchParams ? Object.fromEntries(search) : search;
  const allReasons = (entry.reasons ?? []) as Reason[];
  const reasons = windowOf(allReasons, windowStart(raw.reasons_from));
  const hits = windowOf((entry.guardrails ?? []) as LedgerGuardrailHit[], windowStart(raw.guardrails_from));
  const steps = windowOf((entry.rollout?.steps ?? []) as RolloutStep[], windowStart(raw.steps_from));
  const rollout = entry.rollout;
  const writes = ((rollout?.sandbox as { writes?: SandboxWrite[] } | null)?.writes ?? []).slice(0, MAX_WRITES);
  const kinds: Record<string, string> = Object.fromEntries(
    ((rollout?.registry.tools ?? []) as { name: string; kind: string }[]).map((t) => [t.name, t.kind]),
  );
  const browse = parseBrowseParams(withoutWindowParams(raw));
  const around = browse.ok
    ? await neighbours(browse.params, { id: entry.id, sortValue: sortValueOf(browse.params, entry) })
    : { prev: null, next: null };
  return {
    ...detail,
    // shown whole on the page; the pointers and mentions above read the case as stored
    caseDoc: caseDoc && {
      ...caseDoc,
      ticket: clipJson(caseDoc.ticket) as typeof caseDoc.ticket,
      envSnapshot: clipJson(caseDoc.envSnapshot) as typeof caseDoc.envSnapshot,
      verifierSpec: clipJson(caseDoc.verifierSpec) as typeof caseDoc.verifierSpec,
    },
    reasons: reasons.items,
    hits: hits.items,
    steps: steps.items.map((s) => clipJson(s) as RolloutStep),
    claims: claimsWindow(entry.claims, windowStart(raw.claims_from)),
    reply: textWindow(rollout?.finalReply ?? "", windowStart(raw.reply_from)),
    /** What part of each list and text the page shows (the rest behind "show more"). */
    windows: { reasons: reasons.window, guardrails: hits.window, steps: steps.window },
    writes,
    kinds,
    mustMention: mustMentionsOf(caseDoc?.verifierSpec, caseDoc?.envSnapshot),
    mentionProblems: mentionProblemsOf(allReasons),
    pointers: caseDoc ? listSpecPointers(caseDoc.verifierSpec, caseDoc.envSnapshot) : [],
    /** The browser's query to keep in links (empty when it was bad), and the neighbours within it. */
    query: browse.ok ? browseQuery(browse.params) : "",
    around,
  };
}

/** Sandbox writes read to place them on the steps: more than a rollout makes, far fewer than a wrecked record. */
const MAX_WRITES = 1000;

type ClaimsDoc = {
  claimed_writes?: string[];
  mentioned?: { key: string; value?: unknown }[];
  forbidden_hits?: string[];
};

/** Each claims list windowed alike (one parameter moves them together); the window of the longest. */
function claimsWindow(claims: unknown, from: number): { claims: ClaimsDoc | null; window: Window } {
  const c = claims as ClaimsDoc | null;
  const lists = {
    claimed_writes: windowOf(c?.claimed_writes ?? [], from),
    mentioned: windowOf(c?.mentioned ?? [], from),
    forbidden_hits: windowOf(c?.forbidden_hits ?? [], from),
  };
  const longest = Object.values(lists).reduce((a, b) => (b.window.total > a.window.total ? b : a)).window;
  if (!c) return { claims: null, window: longest };
  return {
    claims: {
      claimed_writes: lists.claimed_writes.items,
      mentioned: lists.mentioned.items.map((m) => clipJson(m) as { key: string; value?: unknown }),
      forbidden_hits: lists.forbidden_hits.items,
    },
    window: longest,
  };
}

export type TrajectoryPageData = NonNullable<Awaited<ReturnType<typeof loadTrajectoryPage>>>;

/**
 * The group page: its K rollouts with their full replies, and the case they answer (a GRPO group samples one prompt,
 * so one ticket; a group whose members name several tickets shows them all and no case), with the group's mean and
 * std and each member's advantage as GRPO computes it. Null when it has none.
 */
export async function loadGroupPage(address: GroupAddress) {
  const members = await loadGroup(address);
  if (!members.length) return null;
  const tickets = [...new Set(members.map((m) => m.ticketId))];
  const caseDoc = tickets.length === 1 ? await readDb().case.findUnique({ where: { ticketId: tickets[0] } }) : null;
  const rewards = members.map((m) => m.reward);
  const present = rewards.filter((r): r is number => r !== null);
  return {
    members,
    tickets,
    caseDoc,
    advantage: { mean: mean(present), std: populationStd(present), advantages: groupAdvantage(rewards) },
    pointers: caseDoc ? listSpecPointers(caseDoc.verifierSpec, caseDoc.envSnapshot) : [],
  };
}
