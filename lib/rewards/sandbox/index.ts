// Code rewards run in a sandbox, never in the console's process: Debian's python3 (standard library only) inside
// bubblewrap, with no network, an empty environment, a read-only minimal filesystem and a private /tmp, under
// prlimit's limits, with a wall-clock timeout per call enforced by killing the worker's process group.
import {
  DEFAULT_LIMITS,
  killSandbox,
  sandboxAvailability,
  sandboxTag,
  spawnSandboxed,
  type SandboxLimits,
} from "./command.ts";
import { failedOutcome, SandboxWorker, type CodeOutcome } from "./worker.ts";

export { DEFAULT_LIMITS, sandboxAvailability, type SandboxLimits };
export type { CodeOutcome, CodeStatus } from "./worker.ts";

export type SyntaxCheck = { ok: true } | { ok: false; line: number; column: number; message: string };

/**
 * Compiles `source` with python3 inside the sandbox (never executing it); a syntax error names its line and column
 * (1-based). Rejects when the sandbox is unavailable or does not answer.
 */
export async function checkPythonSyntax(source: string): Promise<SyntaxCheck> {
  const available = sandboxAvailability();
  if (!available.ok) throw new Error(available.reason);
  const child = spawnSandboxed(DEFAULT_LIMITS, ["check"]);
  const timer = setTimeout(() => killSandbox(child.pid), DEFAULT_LIMITS.timeoutMs);
  const out: string[] = [];
  child.stdout.setEncoding("utf8").on("data", (c: string) => out.push(c));
  child.stderr.resume();
  child.stdin.on("error", () => undefined);
  child.stdin.end(source);
  const code = await new Promise<number | null>((resolve) => {
    child.once("close", (c) => resolve(c));
    child.once("error", () => resolve(null));
  });
  clearTimeout(timer);
  try {
    const r = JSON.parse(out.join("")) as SyntaxCheck;
    if (r.ok || (Number.isInteger(r.line) && Number.isInteger(r.column) && typeof r.message === "string")) return r;
  } catch {
    // reported below
  }
  throw new Error(`the sandbox's syntax check did not answer (exit code ${code})`);
}

type Queued = { payload: string; resolve: (o: CodeOutcome) => void };

/**
 * Warm sandboxed workers for one reward version's `source` (which defines `cal_reward(payload)`): each worker is a
 * long-lived python that runs many calls; a worker is replaced after a call that did not end ok (a raised
 * exception, a timeout, a crash, too much output) and once it has used half its CPU seconds. Without bubblewrap
 * every call ends `unavailable` and no code runs.
 */
export class CodeRewardPool {
  /** In the command line of every process of this pool's sandboxes (for finding strays). */
  readonly tag = sandboxTag();
  private readonly limits: SandboxLimits;
  private readonly size: number;
  private readonly slots: (SandboxWorker | null)[];
  private readonly queue: Queued[] = [];
  private readonly refusal: string | null;
  private closed = false;

  constructor(readonly opts: { source: string; workers?: number; limits?: Partial<SandboxLimits> }) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.size = Math.max(1, Math.floor(opts.workers ?? 2));
    this.slots = Array.from({ length: this.size }, () => null);
    const available = sandboxAvailability();
    this.refusal = available.ok ? null : available.reason;
  }

  /** The process-group ids of the live workers (each worker leads its own group). */
  workerGroups(): number[] {
    return this.slots.flatMap((w) => (w?.pid === undefined ? [] : [w.pid]));
  }

  /** Calls `cal_reward(payload)` (payload: the reward-platform JSON string) in the next free worker. */
  run(payload: string): Promise<CodeOutcome> {
    if (this.refusal) return Promise.resolve(failedOutcome("unavailable", this.refusal));
    if (this.closed) return Promise.resolve(failedOutcome("unavailable", "the pool is closed"));
    return new Promise((resolve) => {
      this.queue.push({ payload, resolve });
      this.dispatch();
    });
  }

  /** Runs every payload across the workers; `onDone` hears each outcome as it ends. Outcomes in payload order. */
  async runMany(payloads: string[], onDone?: (i: number, o: CodeOutcome) => void): Promise<CodeOutcome[]> {
    const outcomes: CodeOutcome[] = new Array(payloads.length);
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < payloads.length; i = next++) {
        outcomes[i] = await this.run(payloads[i]);
        onDone?.(i, outcomes[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.size, payloads.length) }, lane));
    return outcomes;
  }

  /**
   * Kills every worker and waits for them to end (a cancelled run closes its pool). Calls in flight or queued, and
   * later calls, end `unavailable` ("the pool is closed"): stopped, never recorded as the reward's failure.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.resolve(failedOutcome("unavailable", "the pool is closed"));
    await Promise.all(this.slots.map((w) => w?.kill("the pool is closed")));
    this.slots.fill(null);
  }

  private dispatch() {
    for (let s = 0; s < this.size && this.queue.length > 0; s++) {
      let w = this.slots[s];
      if (w && !w.usable && w.spent) {
        void w.kill();
        w = null;
      }
      if (w && !w.usable) continue;
      w ??= this.slots[s] = new SandboxWorker(this.opts.source, this.limits, this.tag);
      const q = this.queue.shift()!;
      void w.call(q.payload).then((o) => {
        q.resolve(o);
        this.dispatch();
      });
    }
  }
}
