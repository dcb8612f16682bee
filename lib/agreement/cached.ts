// The agreement report as the page and both APIs read it (the CLI, one report per process, builds it directly):
// loaded and built once per filter while nothing it is computed from changes. Both are O(reviewed items) — at 1% of
// a run of a million entries, 10,000 items took about 3 s to load and 1 s to build (docs/benchmarks.md, "Scale") —
// while the fingerprint below is one statement of a few index probes per item. The fingerprint covers every input of
// loadAgreementItems and buildAgreementReport: the batches in scope (their tolerance), their items (count, newest,
// reviews done, disputes), the items' reviews and adjudications (both append-only: a correction is a new row), each
// item's current ledger entry (a re-score or a new score record supersedes it), and the cases (a revision bumps a
// case's version); the filter is the key.
import type { Db } from "@/lib/auth/activity-log.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport, type AgreementReport } from "@/lib/agreement/report.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { processCache } from "@/lib/server/fingerprint-cache.ts";

/** A summary of everything the agreement report under `f` is computed from; any write to it changes the summary. */
export async function agreementFingerprint(f: AgreementFilter, client: Db = readDb()): Promise<string> {
  const [row] = await client.$queryRaw<{ fp: string | null }[]>`
    with b as (
      select id, tolerance from audit_batches
       where (${f.run ?? null}::text is null or run_id = ${f.run ?? null}::text)
         and (${f.batch ?? null}::int is null or id = ${f.batch ?? null}::int)),
    it as (
      select i.id, i.run_id, i.trajectory_id, i.reviews_done, i.disputed_at
        from audit_items i where i.batch_id in (select id from b))
    select concat_ws('|',
      (select string_agg(id || ':' || tolerance, ',' order by id) from b),
      (select concat_ws(':', count(*), max(id), sum(reviews_done), count(disputed_at), max(disputed_at)) from it),
      (select concat_ws(':', count(*), max(v.id)) from reviews v where v.item_id in (select id from it)),
      (select concat_ws(':', count(*), max(a.id)) from adjudications a where a.item_id in (select id from it)),
      -- one probe of the run's trajectory index per item ("offset 0" keeps the planner from turning the probes into
      -- a hash join over every current entry of the run: 3.6 s instead of 0.1 s at 10,000 items in 3 M entries)
      (select md5(string_agg(l.id::text, ',' order by it.id))
         from it cross join lateral (
           select c.id from ledger c
            where c.run_id = it.run_id and c.trajectory_id = it.trajectory_id and c.is_current offset 0) l),
      (select concat_ws(':', count(*), sum(version)) from cases)) as fp`;
  return row?.fp ?? "";
}

// The report only: its items (thousands of rows with their entries and reviews) are not kept once it is built.
const reports = processCache<AgreementReport>("agreement-report");

/** The report of the reviewed items under `f`, reused while the fingerprint holds. */
export async function loadAgreementReport(f: AgreementFilter, client: Db = readDb()): Promise<AgreementReport> {
  const fingerprint = await agreementFingerprint(f, client);
  return reports.get(client, JSON.stringify(f), fingerprint, async () =>
    buildAgreementReport(await loadAgreementItems(f, client, { lean: true }), f),
  );
}
