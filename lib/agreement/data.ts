import type { Db } from "@/lib/db/client.ts";
import { listPairSlots, type PairSlots } from "@/lib/agreement/case-slots.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { rows as rowsOf } from "@/lib/db/rows.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { AgreementBasis, AgreementFilter } from "@/lib/agreement/schema.ts";
import type { CaseSlots } from "@/lib/stats/extraction-accuracy.ts";
import {
  toHumanSide,
  toItemHead,
  toLedgerSide,
  type HumanSide,
  type ItemHead,
  type LedgerSide,
} from "@/lib/review/data.ts";

export type AgreementItem = {
  item: ItemHead;
  /** The claim slots of the item's case (lib/agreement/case-slots.ts): what its extraction is compared on. */
  slots: CaseSlots;
  category: string | null;
  ledger: LedgerSide;
  /** Current reviews that count, oldest first (restricted to one annotator when the filter names one). */
  reviews: HumanSide[];
  /** Current reviews that do not count toward agreement (their author could have seen the ledger), with why. */
  excluded?: HumanSide[];
  adjudication: { cause: string; guardrail: string | null } | null;
  /** Both ledgers of the item (loadAgreementItems fills it): the entry it recorded when sampled, and its rollout's
   * current entry (null when it has none). `ledger` is one of them, by the filter's basis. */
  bases?: { reviewed: LedgerSide; now: LedgerSide | null; rescored: boolean };
};

/** The entry of `basis` among an item's two: its current one for "now" (its recorded one when it has none). */
export function entryOnBasis(
  bases: { reviewed: LedgerSide; now: LedgerSide | null },
  basis: AgreementBasis | undefined,
): LedgerSide {
  return basis === "now" ? (bases.now ?? bases.reviewed) : bases.reviewed;
}

/** The items with `ledger` set to the entry of `basis` (entryOnBasis). */
export function onBasis(items: AgreementItem[], basis: AgreementBasis | undefined): AgreementItem[] {
  return items.map((i) => (i.bases ? { ...i, ledger: entryOnBasis(i.bases, basis) } : i));
}

// The columns of a ledger entry as toLedgerSide reads them (ledgerSelect), each with the field it fills: read from the
// entry aliased `a`, each named `<prefix>_<column>`, the enums as text.
const LEDGER_FIELDS = {
  id: "id",
  status: "status",
  source: "source",
  reward: "reward",
  raw_reward: "rawReward",
  outcome: "outcome",
  policy: "policy",
  evidence: "evidence",
  efficiency: "efficiency",
  communication: "communication",
  guardrail_mask: "guardrailMask",
  deciding_guardrail: "decidingGuardrail",
  claims: "claims",
  claims_source: "claimsSource",
  reasons: "reasons",
  guardrails: "guardrails",
  step: "step",
  run_id: "runId",
} as const satisfies Record<string, keyof LedgerRow>;
type LedgerColumn = keyof typeof LEDGER_FIELDS;
const LEDGER_ENTRIES = Object.entries(LEDGER_FIELDS) as [LedgerColumn, keyof LedgerRow][];
const ENUMS = new Set<LedgerColumn>(["status", "source"]);
// What the agreement report leaves out of each entry (LoadOptions.lean): the verifier's reasons and its guardrail hits
// with their caps, which the report reads neither of — 45 of the 80 MB of text at 110,000 reviewed items.
const LEAN_BLANK = new Set<LedgerColumn>(["reasons", "guardrails"]);
// What LoadOptions.verdictsOnly leaves out besides: the entry's claims (the extraction figures' only input).
const VERDICTS_BLANK = new Set<LedgerColumn>([...LEAN_BLANK, "claims"]);

/** The entry's columns; with `unless`, null where that condition holds (the id is always read, as `id` if given). */
const ledgerColumns = (a: string, prefix: string, unless?: string, blank?: ReadonlySet<LedgerColumn>, id?: string) =>
  Prisma.raw(
    LEDGER_ENTRIES.map(([c]) => {
      const as = `${prefix}_${c}`;
      if (c === "id" && id) return `${id} as ${as}`;
      if (blank?.has(c)) return `null::jsonb as ${as}`;
      const col = `${a}.${c}${ENUMS.has(c) ? "::text" : ""}`;
      return `${unless && c !== "id" ? `case when ${unless} then null else ${col} end` : col} as ${as}`;
    }).join(", "),
  );

// The item's recorded entry `l` is its rollout's current entry.
const RECORDED_IS_CURRENT = "l.is_current and l.rollout_id = it.rollout_id";

type LedgerColumns<P extends string> = { [K in LedgerColumn as `${P}_${K}`]: unknown };

type ItemRow = LedgerColumns<"l"> &
  LedgerColumns<"c"> & {
    l_id: bigint;
    c_id: bigint | null;
    id: bigint;
    batch_id: number;
    trajectory_id: string;
    ticket_id: string;
    registry_id: number;
    stratum: string | null;
    inclusion_prob: number;
    reviews_needed: number;
    reviews_done: number;
    disputed_at: Date | null;
    tolerance: number;
    category: string | null;
    cause: string | null;
    adj_guardrail: string | null;
    adjudicated: boolean;
  };

type ReviewRow = {
  item_id: bigint;
  id: bigint;
  reviewer_id: number;
  email: string;
  reward: number;
  outcome: number;
  policy: number;
  evidence: number;
  efficiency: number;
  communication: number;
  guardrails: string[];
  /** Not read when verdictsOnly. */
  claims?: unknown;
  /** Not read when lean (the report reads neither): "" and 0 then. */
  note?: string;
  seconds_spent?: number;
  /** created_at in epoch milliseconds (a timestamptz(3)): a Date from a number, not from pg's text of the time. */
  created_ms: number;
  excluded_reason: string | null;
};

type LedgerRow = Parameters<typeof toLedgerSide>[0];

/** A row's entry `prefix` in the shape toLedgerSide takes (ledgerSelect's). */
function ledgerOf(r: ItemRow, prefix: "l" | "c"): LedgerRow {
  const row = r as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [column, field] of ROW_KEYS[prefix]) out[field] = row[column];
  return out as LedgerRow;
}

// Each prefix's row keys with their fields, spelled once rather than per item.
const ROW_KEYS = {
  l: LEDGER_ENTRIES.map(([c, field]) => [`l_${c}`, field] as const),
  c: LEDGER_ENTRIES.map(([c, field]) => [`c_${c}`, field] as const),
};

export type LoadOptions = {
  /** Leave out each entry's reasons and guardrail hits (both read as empty) and each review's note and time spent
   * ("" and 0): what the agreement report needs. */
  lean?: boolean;
  /**
   * Lean, and leave out besides what only the extraction figures and the change of basis read: the claims (each
   * entry's null, each review's NO_CLAIMS), the case slots (every item's empty) and the rollout's current entry (not
   * looked up: `bases` is left out, so the filter's basis must be the recorded entry's). What a reader of the verdicts,
   * rewards, guardrails and categories alone needs (the reward leaderboard): at 10,000 items the case slots are as
   * many rows of three text arrays, and the claims a JSON document per entry and review.
   */
  verdictsOnly?: boolean;
};

/** A review's claims when they are not read (LoadOptions.verdictsOnly): claimed nothing. Shared: never changed. */
const NO_CLAIMS: HumanSide["claims"] = Object.freeze({ claimed_writes: [], mentioned: [], forbidden_hits: [] });
const NO_SLOTS: PairSlots = () => ({ writeTools: [] });

/** What runItemRows reads of each entry: the columns it blanks, and whether the current entry is looked up. */
type EntryReads = { blank: ReadonlySet<LedgerColumn> | undefined; current: boolean };

/**
 * The reviewed items of run `run` where `itemWhere` holds (items `i` of batches `b`), each with its recorded entry and
 * its rollout's current one, in one statement. The items' own columns are read first and the run's entries and
 * rollouts after, each by the run's key: on Citus (docs/scale.md) the audit tables stay on the coordinator and the
 * run's rows are one worker's, which a statement that also probed them from the items' rows could not be planned on.
 */
function runItemRows(
  client: Db,
  run: string,
  itemWhere: Prisma.Sql,
  category: string | undefined,
  reads: EntryReads,
): Promise<ItemRow[]> {
  // without the current entry, none of its columns is read but its id, as null
  const current = reads.current
    ? ledgerColumns(
        "c",
        "c",
        "c.id = l.id",
        reads.blank,
        `coalesce(c.id, case when ${RECORDED_IS_CURRENT} then l.id end)`,
      )
    : Prisma.raw("null::int8 as c_id");
  return rowsOf<ItemRow>(
    client,
    Prisma.sql`
    with it as materialized (
      select i.id, i.batch_id, i.run_id, i.rollout_id, i.ledger_id, i.trajectory_id, i.ticket_id, i.registry_id,
             i.stratum, i.inclusion_prob, i.reviews_needed, i.reviews_done, i.disputed_at, b.tolerance,
             a.id as adj_id, a.cause, a.guardrail as adj_guardrail
        from audit_items i join audit_batches b on b.id = i.batch_id
        -- the superseding adjudication as a probe of its unique index per candidate (as an anti-join the planner
        -- merged the whole index into every item's lookup: 10,000 items read it 10,000 times)
        left join lateral (
          select a.id, a.cause, a.guardrail from adjudications a
           where a.item_id = i.id and (select s.id from adjudications s where s.supersedes_id = a.id) is null
           order by a.id desc limit 1) a on true
       where ${itemWhere} and b.run_id = ${run}),
    -- the registry of an item stored without one, from its rollout (as lib/agreement/case-slots.ts reads it)
    looked_up as materialized (
      select it.id, ro.registry_id from it join rollouts ro on ro.run_id = it.run_id and ro.id = it.rollout_id
       where it.registry_id is null and ro.run_id = ${run})
    select it.id, it.batch_id, it.trajectory_id, it.ticket_id, coalesce(it.registry_id, lu.registry_id) as registry_id,
           it.stratum, it.inclusion_prob, it.reviews_needed, it.reviews_done, it.disputed_at, it.tolerance, l.category,
           ${ledgerColumns("l", "l", undefined, reads.blank)}, ${current},
           it.cause::text as cause, it.adj_guardrail, it.adj_id is not null as adjudicated
      from it
      join ledger l on l.run_id = it.run_id and l.id = it.ledger_id and l.run_id = ${run}
      left join looked_up lu on lu.id = it.id
      -- the rollout's current entry, looked up only when the recorded one is not it (a trajectory has one current
      -- entry: most items were never re-scored, and 10,000 probes of the trajectory index were a third of the
      -- statement); "offset 0" keeps each lookup a probe of the run's trajectory index (see agreementFingerprint)
      ${
        reads.current
          ? Prisma.sql`left join lateral (
        select * from ledger c
         where not (${Prisma.raw(RECORDED_IS_CURRENT)})
           and c.run_id = it.run_id and c.trajectory_id = it.trajectory_id and c.is_current and c.rollout_id = it.rollout_id
           and c.run_id = ${run}
         offset 0 limit 1) c on true`
          : Prisma.empty
      }
     where true ${category ? Prisma.sql`and l.category = ${category}` : Prisma.empty}`,
  );
}

/** The runs of the audit batches (of batch `batch` when given). */
async function runsInScope(client: Db, batch: number | undefined): Promise<string[]> {
  const found = await rowsOf<{ run_id: string }>(
    client,
    Prisma.sql`select distinct run_id from audit_batches ${batch !== undefined ? Prisma.sql`where id = ${batch}::int` : Prisma.empty}`,
  );
  return found.map((r) => r.run_id);
}

/**
 * Every reviewed audit item under the filter, with the ledger entry of the filter's basis (by default the one it
 * was compared with when reviewed; `basis: "now"` its rollout's current entry), its current reviews and its latest
 * adjudication. Reviewed items are a 1% sample, so this is thousands of rows, not millions.
 *
 * Two statements and the case slots, set-based: the items with their registry (030), their recorded entry, their
 * rollout's current entry (one probe of the run's trajectory index per item, as currentLedgerOfItems) and their
 * latest current adjudication; their current reviews with each reviewer's email; and the slots of their (registry,
 * case) pairs. Prisma's relation queries made one round trip per relation with every item id in it (10,000 items in
 * a run of 3 M entries: 1.1–1.4 s). The rows are shaped by the mappers of lib/review/data.ts, so an item is what
 * those give: CURRENT_REVIEW is "no review supersedes it", CURRENT_ADJUDICATION "no adjudication supersedes it",
 * written here as `not exists` on supersedes_id. The rows come straight from the pool behind `client`
 * (lib/db/rows.ts), as $queryRaw would give them but without its per-row conversion, which was most of the load's
 * time at 100,000 items.
 */
export async function loadAgreementItems(
  f: AgreementFilter,
  client: Db = readDb(),
  options: LoadOptions = {},
): Promise<AgreementItem[]> {
  const verdictsOnly = options.verdictsOnly ?? false;
  const lean = verdictsOnly || (options.lean ?? false);
  if (verdictsOnly && f.basis === "now")
    throw new Error('loadAgreementItems: verdictsOnly does not read the current entries the basis "now" compares with');
  const reads: EntryReads = {
    blank: verdictsOnly ? VERDICTS_BLANK : lean ? LEAN_BLANK : undefined,
    current: !verdictsOnly,
  };
  const from = f.from ? `${f.from}T00:00:00Z` : null;
  const to = f.to ? new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000).toISOString() : null;
  // The reviews that count under the filter (CURRENT_REVIEW, the annotator, the dates), of review `r`.
  const reviewWhere = Prisma.sql`not exists (select 1 from reviews s where s.supersedes_id = r.id)
    ${f.annotator ? Prisma.sql`and r.reviewer_id = (select u.id from users u where u.email = ${f.annotator})` : Prisma.empty}
    ${from ? Prisma.sql`and r.created_at >= ${from}::timestamptz` : Prisma.empty}
    ${to ? Prisma.sql`and r.created_at < ${to}::timestamptz` : Prisma.empty}`;
  // The items under the filter (but its category, which is the ledger entry's, and whether reviewed): the items
  // statement keeps the reviewed ones; the reviews and the case slots are read for every item in scope, so all three
  // statements run at once rather than the last two waiting for the first's ids (10,057 items: ~300 → ~200 ms). An
  // item the category leaves out has its reviews read and not used; the slots are per (registry, case) pair, a few
  // hundred rows however many items are in scope.
  const inScope = Prisma.sql`true
         ${f.batch !== undefined ? Prisma.sql`and i.batch_id = ${f.batch}::int` : Prisma.empty}
         ${f.run ? Prisma.sql`and b.run_id = ${f.run}` : Prisma.empty}`;
  const itemWhere = Prisma.sql`${inScope} and exists (select 1 from reviews r where r.item_id = i.id and ${reviewWhere})`;
  // an item `i` in scope, for the statements that do not read its batch
  const itemInScope = Prisma.sql`exists (select 1 from audit_batches b where b.id = i.batch_id and ${inScope})`;
  // One statement per run in scope (one for a run's report): each reads its run's rows only.
  const itemRows = (f.run ? Promise.resolve([f.run]) : runsInScope(client, f.batch)).then(async (runs) =>
    (await Promise.all(runs.map((run) => runItemRows(client, run, itemWhere, f.category, reads)))).flat(),
  );
  const [rows, reviewRows, slots] = await Promise.all([
    itemRows,
    rowsOf<ReviewRow>(
      client,
      Prisma.sql`
      select r.item_id, r.id, r.reviewer_id, u.email, r.reward, r.outcome, r.policy, r.evidence, r.efficiency,
             r.communication, r.guardrails, ${verdictsOnly ? Prisma.empty : Prisma.sql`r.claims,`}
             ${lean ? Prisma.empty : Prisma.sql`r.note, r.seconds_spent,`}
             (extract(epoch from r.created_at) * 1000)::float8 as created_ms, r.excluded_reason
        from reviews r join users u on u.id = r.reviewer_id
       -- a review that counts is one of a reviewed item's: its item need only be in scope
       where r.item_id in (select i.id from audit_items i where ${itemInScope}) and ${reviewWhere}`,
    ),
    // the slots of the pairs in scope: an item's pair is its registry and case, read by the items statement
    verdictsOnly ? NO_SLOTS : listPairSlots(itemInScope, client, f.run),
  ]);
  // Ordered here rather than in SQL: sorted there, the rows (two entries' JSON each) spilled to disk (12 MB at
  // 10,000 items), for an order the items already have but the planner cannot know.
  rows.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const reviewsOf = new Map<bigint, HumanSide[]>();
  for (const r of reviewRows) {
    const side = toHumanSide({
      id: r.id,
      reviewerId: r.reviewer_id,
      reviewer: { email: r.email },
      reward: r.reward,
      outcome: r.outcome,
      policy: r.policy,
      evidence: r.evidence,
      efficiency: r.efficiency,
      communication: r.communication,
      guardrails: r.guardrails,
      claims: (verdictsOnly ? NO_CLAIMS : r.claims) as Prisma.JsonValue,
      note: r.note ?? "",
      secondsSpent: r.seconds_spent ?? 0,
      createdAt: new Date(r.created_ms),
      excludedReason: r.excluded_reason,
    });
    const list = reviewsOf.get(r.item_id);
    if (list) list.push(side);
    else reviewsOf.set(r.item_id, [side]);
  }
  // each item's reviews oldest first (sorted in SQL, 20,000 reviews spilled to disk; an item has one or a few)
  for (const list of reviewsOf.values())
    if (list.length > 1) list.sort((x, y) => (x.reviewId < y.reviewId ? -1 : x.reviewId > y.reviewId ? 1 : 0));
  const items = rows.map((r): AgreementItem => {
    const recorded = ledgerOf(r, "l");
    const reviewed = toLedgerSide(recorded);
    // the current entry's columns are read only when it is not the recorded one (most items were never re-scored)
    const current = r.c_id === null ? null : r.c_id === r.l_id ? reviewed : toLedgerSide(ledgerOf(r, "c"));
    const reviews = reviewsOf.get(r.id) ?? [];
    return {
      item: toItemHead({
        id: r.id,
        batchId: r.batch_id,
        trajectoryId: r.trajectory_id,
        ticketId: r.ticket_id,
        stratum: r.stratum,
        inclusionProb: r.inclusion_prob,
        reviewsNeeded: r.reviews_needed,
        reviewsDone: r.reviews_done,
        disputedAt: r.disputed_at,
        batch: { tolerance: r.tolerance },
        ledger: recorded,
      }),
      slots: slots(r.registry_id, r.ticket_id),
      category: r.category,
      // set as the items are made rather than by onBasis, which copies each
      ledger: entryOnBasis({ reviewed, now: current }, f.basis),
      reviews: reviews.filter((x) => x.excludedReason === null),
      excluded: reviews.filter((x) => x.excludedReason !== null),
      adjudication: r.adjudicated ? { cause: r.cause!, guardrail: r.adj_guardrail } : null,
      ...(reads.current
        ? { bases: { reviewed, now: current, rescored: !!current && current.ledgerId !== reviewed.ledgerId } }
        : {}),
    };
  });
  return items;
}
