// `verity import tau2`: a tau2-bench results file (and its domain's db.json) into the ledger. The file is read
// twice, streamed both times (lib/import/json-stream.ts): first its tasks, which become cases, then its
// simulations, which become rollouts of those cases. Both go through the ingest path (lib/ingest/ingest.ts) as
// wire objects, so they are validated, scored on the way in and stored idempotently exactly like `verity ingest`
// lines: importing the same file again changes nothing. A task or simulation that cannot be mapped, or that ingest
// refuses, is rejected alone, named by its JSON path (`simulations[12].messages[3].tool_calls[0].arguments`).
import fs from "node:fs";
import type pg from "pg";
import { JsonSyntaxError, streamTopLevel } from "@/lib/import/json-stream.ts";
import type { ImportReject, Tau2ImportSummary } from "@/lib/import/schema.ts";
import { mapTau2Task, type Tau2Db } from "@/lib/import/tau2-case.ts";
import { mapTau2Simulation, parseTau2Simulation } from "@/lib/import/tau2-rollout.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { MAX_LISTED_REJECTS, type IngestSummary } from "@/lib/ingest/schema.ts";
import type { ChangeListener } from "@/lib/ledger/store/changes.ts";

export type Tau2ImportOptions = {
  pool: pg.Pool;
  /** Told what each ingest of the import changed (IngestOptions.after). */
  after?: ChangeListener;
  results: string;
  db: Tau2Db;
  run: string;
  step: number;
  batchLines?: number;
};

/** The run a results file is imported as when --run is not given: its name without the extension. */
export function defaultTau2Run(resultsPath: string): string {
  const base = resultsPath.split(/[\\/]/).pop() ?? resultsPath;
  return base.replace(/\.[^.]*$/, "") || base;
}

/** Reads --db: the domain database, one JSON object of collections (held in memory: it is the domain's, not the run's). */
export function readTau2Db(file: string): { ok: true; db: Tau2Db } | { ok: false; message: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    return { ok: false, message: `cannot read --db ${file}: ${(err as Error).message}` };
  }
  let db: unknown;
  try {
    db = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `--db ${file} is not JSON: ${(err as Error).message}` };
  }
  if (typeof db !== "object" || db === null || Array.isArray(db))
    return { ok: false, message: `--db ${file}: expected a JSON object of collections (users, orders, …)` };
  return { ok: true, db: db as Tau2Db };
}

type TaskEntry = { ticketId: string; domain: string; at: string };

/** Line numbers of the values given to ingest → where they came from; pruned as batches commit. */
class Origins {
  private byLine = new Map<number, string>();
  private next = 0;
  add(at: string): void {
    this.byLine.set(++this.next, at);
  }
  get(line: number): string {
    return this.byLine.get(line) ?? `value ${line}`;
  }
  committed(line: number): void {
    for (const k of this.byLine.keys()) {
      if (k > line) break;
      this.byLine.delete(k);
    }
  }
}

export async function importTau2(opts: Tau2ImportOptions): Promise<Tau2ImportSummary> {
  const summary: Tau2ImportSummary = {
    ok: true,
    run: opts.run,
    tasks: 0,
    simulations: 0,
    cases: { accepted: 0, unchanged: 0, rejected: 0 },
    rollouts: { accepted: 0, unchanged: 0, rejected: 0 },
    scored: 0,
    rejected: 0,
    rejects: [],
    truncated: false,
  };
  const reject = (kind: "cases" | "rollouts", r: ImportReject) => {
    summary[kind].rejected++;
    summary.rejected++;
    if (summary.rejects.length < MAX_LISTED_REJECTS) summary.rejects.push(r);
    else summary.truncated = true;
  };
  const tasks = new Map<string, TaskEntry>();
  const refusedTasks = new Set<string>();
  let fileDomain: string | null = null;
  // The file's syntax broke, or it could not be read: what was read before is imported, and the import stops.
  let unreadable: Error | null = null;

  // Pass 1: the tasks (and `info`, for the domain's name), up to the end of the tasks array.
  const caseOrigins = new Origins();
  async function* cases(): AsyncGenerator<unknown> {
    const source = fs.createReadStream(opts.results, { highWaterMark: 1 << 20 });
    const items = streamTopLevel(source, { arrays: ["tasks"], values: ["info"], until: ["tasks"] });
    for await (const item of readingErrors(items, (e) => (unreadable = e))) {
      if (item.key === "info") {
        const name = (item.value as { environment_info?: { domain_name?: unknown } } | null)?.environment_info
          ?.domain_name;
        if (typeof name === "string" && name) fileDomain = name;
        continue;
      }
      if (item.index === null) {
        reject("cases", { path: "tasks", message: "expected an array of tasks" });
        continue;
      }
      summary.tasks++;
      const at = `tasks[${item.index}]`;
      const m = mapTau2Task(item.value, at, opts.db, fileDomain);
      if (!m.ok) {
        reject("cases", m.issue);
        continue;
      }
      const earlier = tasks.get(m.mapped.taskId);
      if (earlier) {
        reject("cases", {
          path: `${at}.id`,
          message: `task id ${JSON.stringify(m.mapped.taskId)} repeats ${earlier.at}`,
        });
        continue;
      }
      tasks.set(m.mapped.taskId, { ticketId: m.mapped.ticketId, domain: m.mapped.domain, at });
      caseOrigins.add(at);
      yield m.mapped.case;
    }
  }
  const first = await ingestValues(cases(), {
    pool: opts.pool,
    after: opts.after,
    batchLines: opts.batchLines,
    onProgress: (p) => caseOrigins.committed(p.committedLine),
    onReject: (r) => {
      const at = caseOrigins.get(r.line);
      refusedTasks.add(at);
      reject("cases", { path: at, message: r.path ? `case field ${r.path}: ${r.message}` : r.message });
    },
  });
  summary.cases.accepted = first.by_kind.case.accepted;
  summary.cases.unchanged = first.by_kind.case.unchanged;
  if (!first.ok) return stopped(summary, first);
  if (unreadable) return unreadableStop(summary, unreadable, "tasks");

  // Pass 2: the simulations, each a rollout of a case imported above.
  const rolloutOrigins = new Origins();
  async function* rollouts(): AsyncGenerator<unknown> {
    const source = fs.createReadStream(opts.results, { highWaterMark: 1 << 20 });
    const items = streamTopLevel(source, { arrays: ["simulations"] });
    for await (const item of readingErrors(items, (e) => (unreadable = e))) {
      if (item.index === null) {
        reject("rollouts", { path: "simulations", message: "expected an array of simulations" });
        continue;
      }
      summary.simulations++;
      const at = `simulations[${item.index}]`;
      const parsed = parseTau2Simulation(item.value, at);
      if (!parsed.ok) {
        reject("rollouts", parsed.issue);
        continue;
      }
      const task = tasks.get(parsed.sim.task_id);
      if (!task || refusedTasks.has(task.at)) {
        reject("rollouts", {
          path: `${at}.task_id`,
          message: task
            ? `its task (${task.at}) was rejected, so this simulation has no case`
            : `no task with id ${JSON.stringify(parsed.sim.task_id)} in the file's tasks`,
        });
        continue;
      }
      const m = mapTau2Simulation(parsed.sim, at, {
        run: opts.run,
        step: opts.step,
        ticketId: task.ticketId,
        domain: task.domain,
      });
      if (!m.ok) {
        reject("rollouts", m.issue);
        continue;
      }
      rolloutOrigins.add(at);
      yield m.rollout;
    }
  }
  const second = await ingestValues(rollouts(), {
    pool: opts.pool,
    after: opts.after,
    batchLines: opts.batchLines,
    onProgress: (p) => rolloutOrigins.committed(p.committedLine),
    onReject: (r) => {
      const at = rolloutOrigins.get(r.line);
      reject("rollouts", { path: at, message: r.path ? `rollout field ${r.path}: ${r.message}` : r.message });
    },
  });
  summary.rollouts.accepted = second.by_kind.rollout.accepted;
  summary.rollouts.unchanged = second.by_kind.rollout.unchanged;
  summary.scored = second.scored;
  if (!second.ok) return stopped(summary, second);
  if (unreadable) return unreadableStop(summary, unreadable, "simulations");
  return summary;
}

/** Yields the items until reading fails; the failure is handed to `onError` instead of failing the ingest. */
async function* readingErrors<T>(items: AsyncIterable<T>, onError: (e: Error) => void): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (err) {
    onError(err instanceof Error ? err : new Error(String(err)));
  }
}

function unreadableStop(summary: Tau2ImportSummary, err: Error, what: "tasks" | "simulations"): Tau2ImportSummary {
  summary.ok = false;
  const done =
    what === "tasks"
      ? `the ${summary.tasks} tasks before it are imported as cases, no simulation is`
      : `the ${summary.tasks} tasks and the ${summary.simulations} simulations before it are imported`;
  const reason = err instanceof JsonSyntaxError ? err.message : `cannot read the results file: ${err.message}`;
  summary.error = `stopped: ${reason}; ${done}`;
  return summary;
}

/** An ingest that stopped early: the database became unavailable, or the server failed. */
function stopped(summary: Tau2ImportSummary, ingest: IngestSummary): Tau2ImportSummary {
  summary.ok = false;
  summary.error = ingest.error;
  return summary;
}
