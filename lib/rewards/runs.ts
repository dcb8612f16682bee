// Reward runs: a version over a scope of a training run. Starting one records it (and its activity-log entry);
// executing it walks the scope a page at a time — what a page evaluates and stores by the run's kind (plain, probe,
// retest) is run-pages.ts — storing each page's results with COPY and its progress on the run's row, and stops at a
// requested cancel. A run whose process died stays `running` with an old heartbeat; starting the same version of the
// same kind over the same scope again resumes it.
import type pg from "pg";
import { appendActivityLogSql, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { CaseCache } from "@/lib/ledger/store/case-cache.ts";
import { canonicalJson } from "@/lib/verifier/canonical-json.ts";
import { evaluatePage, storePage, type RunKind } from "@/lib/rewards/run-pages.ts";
import { openVersion, type RuntimeOptions } from "@/lib/rewards/runtime.ts";
import type { RunScope, VersionDocument } from "@/lib/rewards/schema.ts";
import { scopePages, scopeTotal } from "@/lib/rewards/scope.ts";

/** A running run whose heartbeat is older than this is taken as interrupted (its process died). */
export const STALE_HEARTBEAT_SECONDS = 60;

export type RunProgress = {
  id: number;
  done: number;
  total: number;
  reused: number;
  /** Results that failed (a probe or a retest stores several per rollout). */
  failed: number;
  /** Rollouts per second over this execution. */
  rate: number;
  /** Seconds left at that rate, null before any progress. */
  etaSeconds: number | null;
  status: "running" | "done" | "cancelled" | "failed";
};

export type StartedRun = { id: number; resumed: boolean; total: number };

/** A run that cannot start: nothing to run it on (not_found), or nothing in its scope yet (conflict). */
export class RewardRunRefused extends Error {
  constructor(
    message: string,
    readonly code: "not_found" | "conflict" = "not_found",
  ) {
    super(message);
  }
}

const actorId = (a: ActivityActor) => ("userId" in a ? a.userId : null);

/** Records a run of the version (or finds the interrupted one of the same version, run and scope, to resume). */
export async function startRewardRun(
  pool: pg.Pool,
  input: { versionId: number; runId: string; scope: RunScope; fresh?: boolean; kind?: RunKind },
  actor: ActivityActor,
): Promise<StartedRun> {
  const kind = input.kind ?? "plain";
  const fresh = !!input.fresh;
  const run = await pool.query("select 1 from runs where id = $1", [input.runId]);
  if (!run.rowCount) throw new RewardRunRefused(`there is no run ${JSON.stringify(input.runId)}`);
  if (input.scope.kind === "batch") {
    const b = await pool.query("select run_id from audit_batches where id = $1", [input.scope.batch]);
    if (!b.rowCount) throw new RewardRunRefused(`there is no batch #${input.scope.batch}`);
    if (b.rows[0].run_id !== input.runId)
      throw new RewardRunRefused(`batch #${input.scope.batch} belongs to run ${b.rows[0].run_id}, not ${input.runId}`);
  }
  const scope = canonicalJson(input.scope);
  const total = await scopeTotal(pool, input.runId, input.scope);
  if (total === 0 && input.scope.kind === "audited")
    throw new RewardRunRefused(
      `run ${input.runId} has no audited rollouts (ticket items with a review): review a shadow-audit batch first`,
      "conflict",
    );
  const stale = await pool.query<{ id: number }>(
    `select id from reward_runs where version_id = $1 and run_id = $2 and scope = $3::jsonb and status = 'running'
        and fresh = $4 and kind = $6 and heartbeat_at < now() - make_interval(secs => $5) order by id desc limit 1`,
    [input.versionId, input.runId, scope, fresh, STALE_HEARTBEAT_SECONDS, kind],
  );
  const client = await pool.connect();
  try {
    await client.query("begin");
    let id: number;
    const resumed = stale.rowCount !== 0;
    if (resumed) {
      id = stale.rows[0].id;
      await client.query("update reward_runs set heartbeat_at = now(), total = $2 where id = $1", [id, total]);
    } else {
      const { rows } = await client.query<{ id: number }>(
        `insert into reward_runs (version_id, run_id, scope, total, fresh, kind, created_by_id)
         values ($1, $2, $3::jsonb, $4, $5, $6, $7) returning id`,
        [input.versionId, input.runId, scope, total, fresh, kind, actorId(actor)],
      );
      id = rows[0].id;
    }
    await appendActivityLogSql(client, {
      actor,
      action: resumed ? "reward.run_resume" : "reward.run_start",
      target: { type: "reward_run", id },
      details: { version_id: input.versionId, run: input.runId, scope: input.scope, total, fresh, kind },
    });
    await client.query("commit");
    return { id, resumed, total };
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Asks a running run to stop after its current page. False when it is not running. */
export async function cancelRewardRun(pool: pg.Pool, id: number, actor: ActivityActor): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const r = await client.query(
      "update reward_runs set cancel_requested_at = now() where id = $1 and status = 'running' and cancel_requested_at is null",
      [id],
    );
    if (r.rowCount)
      await appendActivityLogSql(client, { actor, action: "reward.run_cancel", target: { type: "reward_run", id } });
    await client.query("commit");
    return (r.rowCount ?? 0) > 0;
  } finally {
    client.release();
  }
}

export type ExecuteOptions = RuntimeOptions & {
  pageSize?: number;
  /** Rollouts evaluated at once (the judge's and the sandbox's own bounds apply inside). */
  concurrency?: number;
  /** Called after each page is stored (and once at the end); the run waits for a promise it returns (a cancel). */
  onProgress?: (p: RunProgress) => void | Promise<void>;
};

type RunRow = {
  version_id: number;
  run_id: string;
  scope: RunScope;
  status: string;
  fresh: boolean;
  kind: RunKind;
  done: number;
  total: number;
  body: VersionDocument;
};

/** Executes (or resumes) the run to its end or a cancel; resolves with its last progress. */
export async function executeRewardRun(pool: pg.Pool, id: number, opts: ExecuteOptions = {}): Promise<RunProgress> {
  const { rows } = await pool.query<RunRow>(
    `select r.version_id, r.run_id, r.scope, r.status, r.fresh, r.kind, r.done, r.total, v.body
       from reward_runs r join reward_function_versions v on v.id = r.version_id where r.id = $1`,
    [id],
  );
  if (!rows.length) throw new RewardRunRefused(`there is no reward run #${id}`);
  const run = rows[0];
  if (run.status !== "running") throw new RewardRunRefused(`reward run #${id} is ${run.status}`);
  const open = await openVersion(pool, run.body, opts);
  const started = performance.now();
  const p: RunProgress = {
    id,
    done: 0,
    total: run.total,
    reused: 0,
    failed: 0,
    rate: 0,
    etaSeconds: null,
    status: "running",
  };
  let evaluated = 0;
  try {
    const cases = new CaseCache();
    for await (const ids of scopePages(pool, run.run_id, run.scope, opts.pageSize ?? 500)) {
      const work = await evaluatePage(run.kind, {
        pool,
        run: { id, versionId: run.version_id, runId: run.run_id, fresh: run.fresh },
        ids,
        cases,
        evaluate: (input) => open.compiled.evaluate(input),
        concurrency: opts.concurrency ?? 64,
      });
      const rows = [...work.firsts, ...work.seconds];
      const failed = rows.filter((r) => r.status !== "ok").length;
      const tokens = rows.reduce((s, r) => s + r.judgeTokens, 0);
      const cost = rows.reduce((s, r) => s + r.cost, 0);
      const client = await pool.connect();
      let cancelled = false;
      try {
        await client.query("begin");
        await storePage(client, id, work);
        const u = await client.query<{ done: number; reused: number; failed: number; cancel: boolean }>(
          `update reward_runs set done = done + $2, reused = reused + $3, failed = failed + $4,
                  judge_tokens = judge_tokens + $5, cost = cost + $6, heartbeat_at = now()
            where id = $1 returning done, reused, failed, cancel_requested_at is not null as cancel`,
          [id, work.handled, work.reused, failed, tokens, cost],
        );
        await client.query("commit");
        Object.assign(p, { done: u.rows[0].done, reused: u.rows[0].reused, failed: u.rows[0].failed });
        cancelled = u.rows[0].cancel;
      } catch (err) {
        await client.query("rollback").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      evaluated += ids.length;
      const seconds = (performance.now() - started) / 1000;
      p.rate = seconds > 0 ? evaluated / seconds : 0;
      p.etaSeconds = p.rate > 0 ? Math.max(0, p.total - p.done) / p.rate : null;
      if (cancelled) {
        p.status = "cancelled";
        break;
      }
      await opts.onProgress?.({ ...p });
    }
    if (p.status === "running") p.status = "done";
    await pool.query("update reward_runs set status = $2, finished_at = now(), heartbeat_at = now() where id = $1", [
      id,
      p.status,
    ]);
  } catch (err) {
    p.status = "failed";
    await pool
      .query("update reward_runs set status = 'failed', error = $2, finished_at = now() where id = $1", [
        id,
        (err as Error).message,
      ])
      .catch(() => undefined);
    throw err;
  } finally {
    await open.close();
  }
  await opts.onProgress?.({ ...p, etaSeconds: 0 });
  return p;
}
