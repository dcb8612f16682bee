// The search's disk in a run, for the search benches: its rows' and its blocks' partitions together (heap, TOAST,
// indexes), and the run's rollouts', in bytes.
import type pg from "pg";

export type SearchDisk = { total: number; heap: number; toast: number; indexes: number; rollouts: number };

/** The run's partitions of rollout_search and rollout_search_blocks together, and of rollouts, in bytes. */
export async function searchDisk(c: pg.Client, run: string): Promise<SearchDisk> {
  const { rows } = await c.query(
    `with p as (select to_regclass(quote_ident(verity_run_partition_name(t, $1))) as s
                  from unnest(array['rollout_search', 'rollout_search_blocks']) t)
     select sum(pg_total_relation_size(p.s)) as total, sum(pg_relation_size(p.s)) as heap,
            sum(pg_indexes_size(p.s)) as indexes,
            sum(coalesce((select pg_total_relation_size(reltoastrelid) from pg_class where oid = p.s and reltoastrelid <> 0), 0)) as toast,
            pg_total_relation_size(to_regclass(quote_ident(verity_run_partition_name('rollouts', $1)))) as rollouts
       from p`,
    [run],
  );
  const r = rows[0];
  return {
    total: Number(r.total),
    heap: Number(r.heap),
    toast: Number(r.toast),
    indexes: Number(r.indexes),
    rollouts: Number(r.rollouts),
  };
}
