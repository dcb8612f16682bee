// What follows a write, handed in by whoever called the writer (a route, a server action, the CLI): the writers
// (lib/ingest, lib/ledger, lib/cases, review submission) announce what they changed and know nothing of this.
//
// Alarm (and audit gate) evaluation as data arrives, for the bulk writers (ingest through the API and the CLI, re-score): each
// committed batch reports the runs it changed; their alarms are evaluated in the background at most once per
// interval while the write goes on, and once more when it ends, so a long ingest turns an alarm red while it is
// still streaming and a short one evaluates exactly once. The evaluation reads through a Prisma client over the
// writer's own pool, so the states land in the database the rows went to (the CLI's database is not the console's
// DATABASE_URL). Never throws: a failed evaluation is logged, and the next write (or start) evaluates again.
import type pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { ChangeListener } from "@/lib/ledger/store/changes.ts";

export type AfterWriteOptions = {
  /**
   * "background" (servers): the webhook posts go on after the write has answered. "await" (default; short-lived
   * processes such as the CLI): settle() also waits for the posts, which are bounded by the webhook timeout.
   */
  webhook?: "await" | "background";
  /** Webhook URL; default VERITY_ALARM_WEBHOOK_URL, null for none. */
  webhookUrl?: string | null;
  /** Least time from the start of the write to its first evaluation, and between two, while the write goes on
   * (default 2 s); the final one is not held back. */
  intervalMs?: number;
};

const DEFAULT_INTERVAL_MS = 2000;

// One client per pool: the pool outlives many writes (bulkPool is per process), a client per write would not.
const clients = new WeakMap<pg.Pool, PrismaClient>();

// The evaluation and its Prisma client are loaded when the first evaluation runs, not with the writer: loading them
// costs about a second of CPU and 90 MB in a fresh process, which a CLI ingest should not pay before its first line.
// (These imports point down the layers, like any other of this module's: a lazy load, not a way round them.)
type Evaluator = {
  evaluateRunAlarms: typeof import("@/lib/monitors/evaluate.ts").evaluateRunAlarms;
  evaluateRunGate: typeof import("@/lib/gate/refresh.ts").evaluateRunGate;
  clientFor: (pool: pg.Pool) => PrismaClient;
  /** The console's own client (DATABASE_URL), for the review hook. */
  db: () => PrismaClient;
};
let evaluator: Promise<Evaluator> | undefined;

function loadEvaluator(): Promise<Evaluator> {
  if (evaluator) return evaluator;
  evaluator = Promise.all([
    import("@/lib/db/client.ts"),
    import("@/lib/monitors/evaluate.ts"),
    import("@/lib/gate/refresh.ts"),
  ]).then(([{ clientOver, db }, { evaluateRunAlarms }, { evaluateRunGate }]) => ({
    evaluateRunAlarms,
    db,
    evaluateRunGate,
    clientFor(pool) {
      let client = clients.get(pool);
      if (!client) {
        // never disconnected: the pool is the writer's, and outlives this client's evaluations
        client = clientOver(pool);
        clients.set(pool, client);
      }
      return client;
    },
  }));
  // A failed load (never expected) is tried again by the next evaluation rather than remembered.
  evaluator.catch(() => (evaluator = undefined));
  return evaluator;
}

/** The listener a bulk writer over `pool` is handed: alarms and the gate of the runs it changed, and their webhooks. */
export function afterWrite(pool: pg.Pool, opts: AfterWriteOptions = {}): ChangeListener {
  const pending = new Set<string>();
  const deliveries: Promise<void>[] = [];
  const interval = opts.intervalMs ?? DEFAULT_INTERVAL_MS;
  let running: Promise<void> | null = null;
  // The first evaluation while the write goes on comes one interval after it started: a write shorter than that is
  // evaluated once, when it ends (settle).
  let last = Date.now();

  // One evaluation pass at a time, over the runs reported since the last pass, in a stable order.
  const drain = async () => {
    const runs = [...pending].sort();
    pending.clear();
    last = Date.now();
    for (const runId of runs) {
      try {
        const { evaluateRunAlarms, evaluateRunGate, clientFor } = await loadEvaluator();
        const client = clientFor(pool);
        const r = await evaluateRunAlarms(runId, { client, webhook: "background", webhookUrl: opts.webhookUrl });
        deliveries.push(r.delivered);
        // The audit gate reads the same rollups and reviews; its verdict change goes to the same webhook.
        const g = await evaluateRunGate(runId, { webhook: "background", webhookUrl: opts.webhookUrl }, client);
        deliveries.push(g.delivered);
      } catch (err) {
        console.error(
          `alarms of run ${runId} were not evaluated after the write (the next write or start will):`,
          err instanceof Error ? err.message : err,
        );
      }
    }
  };

  return {
    committed(runIds) {
      for (const r of runIds) pending.add(r);
      if (pending.size === 0 || running || Date.now() - last < interval) return;
      running = drain().finally(() => {
        running = null;
      });
    },
    async settle() {
      if (running) await running;
      if (pending.size > 0) await drain();
      // `delivered` never rejects (evaluate.ts logs a failed post), so this cannot fail the write.
      if ((opts.webhook ?? "await") === "await") await Promise.all(deliveries);
    },
  };
}

/**
 * After a shadow review (or a pair review) is submitted: the run's extraction and reward-hacking alarms read the
 * current reviews, so a review is data arriving like an ingest batch (a lead's verdict changes nothing these alarms
 * read). Evaluates the alarms and the gate of the run whose audit batch holds `itemId`; webhook posts go on in the
 * background. Never throws: a failed evaluation is logged, and the next write (or start) evaluates again.
 */
export async function afterReview(itemId: bigint): Promise<void> {
  try {
    const { evaluateRunAlarms, evaluateRunGate, db } = await loadEvaluator();
    const item = await db().auditItem.findUnique({
      where: { id: itemId },
      select: { batch: { select: { runId: true } } },
    });
    if (item) {
      await evaluateRunAlarms(item.batch.runId, { webhook: "background" });
      // The gate's agreement, extraction and reward-hacking rules read the reviews too.
      await evaluateRunGate(item.batch.runId, { webhook: "background" });
    }
  } catch (err) {
    console.error(
      `alarms not evaluated after the review of item ${itemId} (the next write or start will):`,
      err instanceof Error ? err.message : err,
    );
  }
}

/**
 * After a run's alarm thresholds are saved: the alarms and the gate both read them (the gate's rules default to
 * them), so both are evaluated again at once and the run page shows a verdict under the thresholds it shows. Never
 * throws: a failed evaluation is logged, and the next write (or start) evaluates again.
 */
export async function afterThresholds(runId: string): Promise<void> {
  try {
    const { evaluateRunAlarms, evaluateRunGate } = await loadEvaluator();
    await evaluateRunAlarms(runId, { webhook: "background" });
    await evaluateRunGate(runId, { webhook: "background" });
  } catch (err) {
    console.error(
      `alarms not evaluated after the thresholds of run ${runId} changed (the next write or start will):`,
      err instanceof Error ? err.message : err,
    );
  }
}
