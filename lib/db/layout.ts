// Which layout the database has: the ledger partitioned by run on one node, or distributed by run on a Citus cluster
// (docs/scale.md, "Verity on Citus"). A few reads are phrased for each.
import type { Db } from "@/lib/db/client.ts";

const known = new WeakMap<object, Promise<boolean>>();

/**
 * Whether the ledger is distributed (a table Citus shards by run) rather than partitioned by run. Read once per client:
 * the layout changes only by `verity db distribute`, after which the console is restarted.
 */
export function ledgerDistributed(client: Db): Promise<boolean> {
  let answer = known.get(client);
  if (!answer) {
    answer = client.$queryRaw<{ distributed: boolean }[]>`
      select relkind <> 'p' as distributed from pg_class where oid = 'ledger'::regclass`.then((r) => r[0].distributed);
    known.set(client, answer);
    answer.catch(() => known.delete(client));
  }
  return answer;
}
