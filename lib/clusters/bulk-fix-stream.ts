// The bulk fix's dry run as a stream of NDJSON lines (the clusters page's "Dry run" reads it as it comes): a `start`
// line with the tickets and rollouts to score, a `progress` line every 1,000 rollouts (lib/clusters/bulk-fix.ts), then
// one `result` line with the diff — or one `error` line. Nothing is buffered but the diff's bounded summary; a
// client that goes away stops the scoring at the next progress line.
import type pg from "pg";
import { dryRunBulkFix, type BulkDryRun, type BulkFixProgress } from "@/lib/clusters/bulk-fix.ts";
import type { BulkFixTarget } from "@/lib/clusters/bulk-fix-target.ts";
import type { SpecChange } from "@/lib/clusters/spec-change.ts";

export type DryRunLine =
  | { type: "start"; tickets: number; rollouts: number; cluster: string; change: string }
  | ({ type: "progress" } & BulkFixProgress)
  | { type: "result"; dryRun: BulkDryRun }
  | { type: "error"; message: string };

/** Current entries of the tickets in the run: what the dry run will score (its progress bar's end). */
export async function countTicketRollouts(pool: pg.Pool, runId: string, tickets: readonly string[]): Promise<number> {
  const r = await pool.query<{ n: number }>(
    "select count(*)::int as n from ledger where run_id = $1 and is_current and ticket_id = any($2::text[])",
    [runId, tickets],
  );
  return r.rows[0].n;
}

class Cancelled extends Error {}

/** The NDJSON byte stream of a dry run over the target's tickets in its run. */
export function dryRunStream(
  pool: pg.Pool,
  target: BulkFixTarget,
  change: SpecChange,
  describe: string,
): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (line: DryRunLine) => {
        if (cancelled) throw new Cancelled();
        controller.enqueue(enc.encode(JSON.stringify(line) + "\n"));
      };
      try {
        const rollouts = await countTicketRollouts(pool, target.window.runId, target.tickets);
        send({ type: "start", tickets: target.tickets.length, rollouts, cluster: target.clusterKey, change: describe });
        const dryRun = await dryRunBulkFix(pool, {
          tickets: target.tickets,
          change,
          runId: target.window.runId,
          onProgress: (p) => send({ type: "progress", ...p }),
        });
        send({ type: "result", dryRun });
        controller.close();
      } catch (err) {
        if (err instanceof Cancelled) return;
        console.error("bulk fix dry run failed", err);
        try {
          send({ type: "error", message: "The dry run failed on the server; nothing was changed." });
          controller.close();
        } catch {
          // the client is gone
        }
      }
    },
    cancel() {
      cancelled = true;
    },
  });
}
