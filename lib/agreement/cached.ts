// The agreement report as the page and both APIs read it (the CLI, one report per process, builds it directly):
// loaded and built once per filter while nothing it is computed from changes. Both are O(reviewed items) — at 1% of
// a run of a million entries, 10,000 items took about 3 s to load and 1 s to build (docs/benchmarks.md, "Scale") —
// while the fingerprint below is one statement of a few index probes per item. The fingerprint covers every input of
// loadAgreementItems and buildAgreementReport: the batches in scope (their tolerance), their items (count, newest,
// reviews done, disputes), the items' reviews and adjudications (both append-only: a correction is a new row), each
// item's current ledger entry (a re-score or a new score record supersedes it: the runs' counts of superseding
// entries stand for them, so a re-score of any of the run's entries is taken as a change), and the cases (a revision
// bumps a case's version); the filter is the key.
import type { Db } from "@/lib/db/client.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport, type AgreementReport } from "@/lib/agreement/report.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { processCache, type Latest } from "@/lib/db/fingerprint-cache.ts";

/** A summary of everything the agreement report under `f` is computed from; any write to it changes the summary. */
export async function agreementFingerprint(f: AgreementFilter, client: Db = readDb()): Promise<string> {
  const [row] = await client.$queryRaw<{ fp: string | null }[]>`
    with b as (
      select id, run_id, tolerance from audit_batches
       where (${f.run ?? null}::text is null or run_id = ${f.run ?? null}::text)
         and (${f.batch ?? null}::int is null or id = ${f.batch ?? null}::int)),
    it as (
      select i.id, i.reviews_done, i.disputed_at
        from audit_items i where i.batch_id in (select id from b))
    select concat_ws('|',
      (select string_agg(id || ':' || tolerance, ',' order by id) from b),
      (select concat_ws(':', count(*), max(id), sum(reviews_done), count(disputed_at), max(disputed_at)) from it),
      (select concat_ws(':', count(*), max(v.id)) from reviews v where v.item_id in (select id from it)),
      (select concat_ws(':', count(*), max(a.id)) from adjudications a where a.item_id in (select id from it)),
      -- an item's current entry changes only when an entry superseding it is inserted, which its run counts (028,
      -- 040): a row per run in scope that has counted any, where a probe of each item's current entry was O(items)
      -- (1.86 s at 110,000)
      (select string_agg(k.run_id || ':' || k.superseding_count || ':' || coalesce(k.last_superseding_id, 0), ','
                         order by k.run_id)
         from run_counters k where k.run_id in (select run_id from b)),
      (select concat_ws(':', count(*), sum(version)) from cases)) as fp`;
  return row?.fp ?? "";
}

// The report only: its items (thousands of rows with their entries and reviews) are not kept once it is built.
const reports = processCache<AgreementReport>("agreement-report");

/** The report computed afresh. */
const computeReport = (f: AgreementFilter, client: Db) => async () =>
  buildAgreementReport(await loadAgreementItems(f, client, { lean: true }), f);

/** The report of the reviewed items under `f`, reused while the fingerprint holds. */
export async function loadAgreementReport(f: AgreementFilter, client: Db = readDb()): Promise<AgreementReport> {
  const fingerprint = await agreementFingerprint(f, client);
  return reports.get(client, JSON.stringify(f), fingerprint, computeReport(f, client));
}

/**
 * A report slower to compute than this is not waited for by the page when an earlier one of the same filter is
 * ready: the page shows that one, saying how old it is, while the current one is computed for the next view.
 * Uncached, 10,000 reviewed items take ~0.4 s and 100,000 take ~4 s (docs/benchmarks.md): with reviews arriving all
 * day, every view of a large audit would otherwise wait for a fresh build. A report faster than this is always the
 * current one, so a lead sees their own adjudication at once wherever that costs little.
 */
export const AGREEMENT_STALE_AFTER_MS = 1000;

/**
 * The report for the agreement page: loadAgreementReport's, or, while a report slower than `slowMs` is rebuilt
 * after a change, the one before it with the time it was asked for (FingerprintCache.latest).
 */
export async function loadAgreementReportLatest(
  f: AgreementFilter,
  client: Db = readDb(),
  slowMs = AGREEMENT_STALE_AFTER_MS,
): Promise<Latest<AgreementReport>> {
  const fingerprint = await agreementFingerprint(f, client);
  return reports.latest(client, JSON.stringify(f), fingerprint, computeReport(f, client), { slowMs });
}
