import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { killSandbox, spawnSandboxed, type SandboxLimits } from "./command.ts";

/** How one call of a code reward ended. A failure is never a 0: it is one of the statuses besides `ok`. */
export type CodeStatus = "ok" | "error" | "timeout" | "invalid_output" | "unavailable";

/**
 * One call's result. `reward` is a finite number exactly when `status` is `ok` (never clamped: the reward may be any
 * float). `stdout` and `stderr` are what the user's code printed during the call (each at most the limit's
 * maxOutputBytes characters); `error` says why the call failed (for a raised exception, the traceback's last line),
 * null when ok. `latencyMs` runs from handing the payload to a worker to its answer (or its end).
 */
export type CodeOutcome = {
  status: CodeStatus;
  reward: number | null;
  stdout: string;
  stderr: string;
  error: string | null;
  latencyMs: number;
};

type Answer = { status: CodeStatus; reward: number | null; stdout: string; stderr: string; error: string | null };
type Pending = { resolve: (o: CodeOutcome) => void; started: number; timer: NodeJS.Timeout };

export function failedOutcome(status: CodeStatus, error: string, latencyMs = 0): CodeOutcome {
  return { status, reward: null, stdout: "", stderr: "", error, latencyMs };
}

/** The harness's answer line, checked: anything else is the worker's failure, not the reward's value. */
function parseAnswer(line: string): Answer | null {
  let a: unknown;
  try {
    a = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof a !== "object" || a === null) return null;
  const { status, reward, stdout, stderr, error } = a as Record<string, unknown>;
  const known = status === "ok" || status === "error" || status === "invalid_output";
  if (!known || typeof stdout !== "string" || typeof stderr !== "string") return null;
  if (status === "ok" && !(typeof reward === "number" && Number.isFinite(reward))) return null;
  if (status !== "ok" && typeof error !== "string") return null;
  return {
    status,
    reward: status === "ok" ? (reward as number) : null,
    stdout,
    stderr,
    error: (error as string) ?? null,
  };
}

/**
 * One warm sandboxed python running the harness for one source: one call at a time. After a call that ends in
 * anything but `ok`, or once it has used half its CPU seconds, the worker is spent and its owner replaces it.
 */
export class SandboxWorker {
  readonly pid: number | undefined;
  private readonly child: ChildProcessWithoutNullStreams;
  private pending: Pending | null = null;
  private readonly stdoutParts: string[] = [];
  private stdoutSize = 0;
  private rawStderr = "";
  private cpu = 0;
  private ended = false;
  private readonly exited: Promise<void>;
  spent = false;

  constructor(
    source: string,
    private readonly limits: SandboxLimits,
    tag: string,
  ) {
    this.child = spawnSandboxed(limits, [String(limits.maxOutputBytes), tag]);
    this.pid = this.child.pid;
    this.exited = new Promise((resolve) => this.child.once("close", () => resolve()));
    this.child.once("close", (code, signal) =>
      this.onEnd(`the reward's process ended (${signal ?? `exit code ${code}`})`),
    );
    this.child.once("error", (e) => this.onEnd(`the sandbox did not start: ${e.message}`));
    this.child.stdin.on("error", () => undefined); // a dead worker's pipe: its end is reported by "close"
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => this.onStdout(chunk));
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => this.onStderr(chunk));
    this.child.stdin.write(JSON.stringify({ source }) + "\n");
  }

  /** Whether the worker can take another call. */
  get usable(): boolean {
    return !this.ended && !this.spent && this.pending === null;
  }

  /** Runs one call; settles with the reward's outcome, whatever the worker does. */
  call(payload: string): Promise<CodeOutcome> {
    if (!this.usable) return Promise.resolve(failedOutcome("error", "the worker is not available"));
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => this.fail("timeout", `took longer than ${this.limits.timeoutMs} ms`),
        this.limits.timeoutMs,
      );
      this.pending = { resolve, started: performance.now(), timer };
      this.rawStderr = "";
      this.child.stdin.write(JSON.stringify({ payload }) + "\n");
    });
  }

  /**
   * Kills the worker's process group (its sandbox's namespace dies with it) and waits for it to end. A call in
   * flight ends `unavailable` with `reason`: it was stopped, not failed by the reward.
   */
  async kill(reason = "the worker was stopped"): Promise<void> {
    this.spent = true;
    const p = this.pending;
    if (p) this.settle(failedOutcome("unavailable", reason, performance.now() - p.started));
    if (this.child.exitCode === null && this.child.signalCode === null) killSandbox(this.child.pid);
    if (this.child.pid !== undefined) await this.exited;
  }

  private onStdout(chunk: string) {
    let rest = chunk;
    for (let nl = rest.indexOf("\n"); nl >= 0; nl = rest.indexOf("\n")) {
      this.stdoutParts.push(rest.slice(0, nl));
      const line = this.stdoutParts.join("");
      this.stdoutParts.length = 0;
      this.stdoutSize = 0;
      this.onAnswer(line);
      rest = rest.slice(nl + 1);
    }
    if (!rest) return;
    this.stdoutParts.push(rest);
    this.stdoutSize += rest.length;
    // An answer holds at most twice the output limit, each character escaped to at most 6 in JSON.
    if (this.stdoutSize > 12 * this.limits.maxOutputBytes + 65_536)
      this.fail("error", "the harness's answer is too long");
  }

  private onStderr(chunk: string) {
    if (this.rawStderr.length + chunk.length > this.limits.maxOutputBytes) {
      this.fail("invalid_output", `printed more than ${this.limits.maxOutputBytes} characters`);
      return;
    }
    this.rawStderr += chunk;
  }

  private onAnswer(line: string) {
    const p = this.pending;
    if (!p) return this.fail("error", "the harness answered with no call in flight");
    const answer = parseAnswer(line);
    if (!answer) return this.fail("error", "the harness's answer is malformed");
    const cpu = (JSON.parse(line) as { cpu?: unknown }).cpu;
    if (typeof cpu === "number") this.cpu = cpu;
    if (answer.status !== "ok" || this.cpu > this.limits.cpuSeconds / 2) this.spent = true;
    const stderr = (answer.stderr + this.rawStderr).slice(0, this.limits.maxOutputBytes);
    this.settle({ ...answer, stderr, latencyMs: performance.now() - p.started });
  }

  /** Ends the call in flight (if any) with `status` and kills the worker. */
  private fail(status: CodeStatus, error: string) {
    const p = this.pending;
    if (p) {
      const outcome = failedOutcome(status, error, performance.now() - p.started);
      this.settle({ ...outcome, stderr: this.rawStderr.slice(0, this.limits.maxOutputBytes) });
    }
    void this.kill();
  }

  private onEnd(why: string) {
    this.ended = true;
    this.fail("error", why);
  }

  private settle(outcome: CodeOutcome) {
    const p = this.pending;
    if (!p) return;
    clearTimeout(p.timer);
    this.pending = null;
    this.rawStderr = "";
    p.resolve(outcome);
  }
}
