// Code rewards run in a sandbox, never in the console's process: Debian's python3 (standard library only) inside
// bubblewrap, with no network, an empty environment, a read-only minimal filesystem and a private /tmp, under
// prlimit's limits, with a wall-clock timeout per call enforced by killing the worker's process group.

/** How one call of a code reward ended. A failure is never a 0: it is one of the statuses besides `ok`. */
export type CodeStatus = "ok" | "error" | "timeout" | "invalid_output" | "unavailable";

/**
 * One call's result. `reward` is a finite number exactly when `status` is `ok` (not clamped: the user's function may
 * return any float). `stdout` and `stderr` are what the user's code printed during the call (bounded); `error` says
 * why the call failed (the traceback's last line for a raised exception), null when ok.
 */
export type CodeOutcome = {
  status: CodeStatus;
  reward: number | null;
  stdout: string;
  stderr: string;
  error: string | null;
  latencyMs: number;
};

/**
 * Limits of one sandboxed worker: `timeoutMs` is the wall-clock time one call may take; `cpuSeconds`, `memoryBytes`
 * (address space), `maxProcesses` and `maxFileBytes` are prlimit's RLIMIT_CPU, RLIMIT_AS, RLIMIT_NPROC and
 * RLIMIT_FSIZE for the worker; `maxOutputBytes` bounds what one call may print (beyond it the call is invalid_output).
 */
export type SandboxLimits = {
  timeoutMs: number;
  cpuSeconds: number;
  memoryBytes: number;
  maxProcesses: number;
  maxFileBytes: number;
  maxOutputBytes: number;
};

export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 5000,
  cpuSeconds: 60,
  memoryBytes: 512 * 1024 * 1024,
  maxProcesses: 64,
  maxFileBytes: 16 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
};

/** Whether code rewards can run here: bwrap and python3 present and a sandboxed python starts. Else why not. */
export function sandboxAvailability(): { ok: true } | { ok: false; reason: string } {
  return { ok: false, reason: "the sandbox is not implemented yet" };
}

/** Compiles `source` with python3 inside the sandbox (never executing it); a syntax error names its line and column. */
export async function checkPythonSyntax(
  source: string,
): Promise<{ ok: true } | { ok: false; line: number; column: number; message: string }> {
  void source;
  return { ok: false, line: 0, column: 0, message: "the sandbox is not implemented yet" };
}

/**
 * Warm sandboxed workers for one reward version's `source` (which defines `cal_reward(payload)`): each worker is a
 * long-lived python process that runs many calls; a worker is replaced after a failure, a timeout or a crash.
 * Without bubblewrap every call ends `unavailable` and no code runs.
 */
export class CodeRewardPool {
  constructor(readonly opts: { source: string; workers?: number; limits?: Partial<SandboxLimits> }) {}

  /** Calls `cal_reward(payload)` (payload: the reward-platform JSON string) in a free worker. */
  async run(payload: string): Promise<CodeOutcome> {
    void payload;
    return unavailable("the sandbox is not implemented yet");
  }

  /** Runs every payload across the workers; `onDone` hears each outcome as it ends. Outcomes in payload order. */
  async runMany(payloads: string[], onDone?: (i: number, o: CodeOutcome) => void): Promise<CodeOutcome[]> {
    return Promise.all(
      payloads.map(async (p, i) => {
        const o = await this.run(p);
        onDone?.(i, o);
        return o;
      }),
    );
  }

  /** Kills every worker; later calls end `unavailable`. */
  async close(): Promise<void> {}
}

function unavailable(reason: string): CodeOutcome {
  return { status: "unavailable", reward: null, stdout: "", stderr: "", error: reason, latencyMs: 0 };
}
