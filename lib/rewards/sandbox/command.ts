import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Limits of one sandboxed worker. `timeoutMs`: wall-clock time one call may take (the pool then kills the worker).
 * `cpuSeconds`, `memoryBytes`, `maxProcesses`, `maxFileBytes`: prlimit's RLIMIT_CPU (over the worker's life: the
 * pool replaces a worker between calls once it has used half), RLIMIT_AS, RLIMIT_NPROC and RLIMIT_FSIZE (also the
 * size of the private /tmp). `maxOutputBytes`: what one call may print on stdout or stderr; beyond it the call is
 * invalid_output.
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
  memoryBytes: 512 * 2 ** 20,
  maxProcesses: 32,
  maxFileBytes: 16 * 2 ** 20,
  maxOutputBytes: 2 ** 20,
};

// Debian's packages, at fixed paths: PATH is never consulted, so what runs is what the packages installed.
export const SANDBOX_TOOLS = {
  bwrap: "/usr/bin/bwrap",
  prlimit: "/usr/bin/prlimit",
  setpriv: "/usr/bin/setpriv",
  python: "/usr/bin/python3",
};

/** Where the harness lives: read from the checkout, as the migrations are, and bound read-only into the sandbox. */
export const HARNESS_FILE = path.resolve(/*turbopackIgnore: true*/ process.cwd(), "lib/rewards/sandbox/harness.py");

// Inside the sandbox the harness is this read-only file, copied in by bwrap from the descriptor on fd 3.
const HARNESS_INSIDE = "/sandbox/harness.py";

/**
 * A uid of its own for each worker when the console runs as root: RLIMIT_NPROC counts the processes of a uid (and
 * does not apply to root), so a fork bomb in one worker exhausts only its own count, never another worker's.
 */
function workerUid(): number {
  return 0x10_0000 + crypto.randomInt(0x40_0000);
}

/** The processes `uid` runs now: RLIMIT_NPROC counts them too, so a non-root worker's limit is on top of them. */
function processCount(uid: number): number {
  let n = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.statSync(`/proc/${pid}`).uid === uid) n += 1;
    } catch {
      // the process ended while we counted
    }
  }
  return n;
}

/**
 * The argv of one sandboxed python: setpriv (as root: to a uid of its own, no capabilities) → prlimit → bwrap with
 * every namespace unshared (no network), an empty environment, only /usr bound read-only (with /bin, /lib, /lib64
 * as links into it), a fresh /proc and /dev, a private size-limited /tmp, a read-only root, a new session, and death
 * with its parent. `args` follow the harness's path; `tag` is in every sandboxed process's command line.
 */
function sandboxArgv(limits: SandboxLimits, args: string[]): string[] {
  const root = process.getuid?.() === 0;
  const uid = root ? workerUid() : (process.getuid?.() ?? 0);
  const nproc = root ? limits.maxProcesses : processCount(uid) + limits.maxProcesses;
  const drop = root
    ? [
        SANDBOX_TOOLS.setpriv,
        `--reuid=${uid}`,
        `--regid=${uid}`,
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
      ]
    : [];
  return [
    ...drop,
    ...[SANDBOX_TOOLS.prlimit, `--cpu=${limits.cpuSeconds}`, `--as=${limits.memoryBytes}`, `--nproc=${nproc}`],
    ...[`--fsize=${limits.maxFileBytes}`, "--core=0", "--"],
    ...[SANDBOX_TOOLS.bwrap, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534"],
    ...["--cap-drop", "ALL", "--disable-userns", "--die-with-parent", "--new-session", "--clearenv"],
    ...["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib"],
    ...(fs.existsSync("/usr/lib64") ? ["--symlink", "usr/lib64", "/lib64"] : []),
    ...["--proc", "/proc", "--dev", "/dev", "--size", String(limits.maxFileBytes), "--tmpfs", "/tmp"],
    ...["--ro-bind-data", "3", HARNESS_INSIDE, "--remount-ro", "/", "--chdir", "/tmp", "--"],
    ...[SANDBOX_TOOLS.python, "-I", "-S", "-B", HARNESS_INSIDE, ...args],
  ];
}

// Not even the tools before bwrap see the console's environment (DATABASE_URL, secrets).
const EMPTY_ENV = {} as NodeJS.ProcessEnv;

/**
 * Starts the harness in a sandbox with `args`, its stdin, stdout and stderr piped and the harness file on fd 3 (for
 * bwrap to copy in). The child leads a process group of its own, so killing the group kills the whole sandbox.
 */
export function spawnSandboxed(limits: SandboxLimits, args: string[]): ChildProcessWithoutNullStreams {
  const argv = sandboxArgv(limits, args);
  const fd = fs.openSync(HARNESS_FILE, "r");
  try {
    const stdio: ["pipe", "pipe", "pipe", number] = ["pipe", "pipe", "pipe", fd];
    return spawn(argv[0], argv.slice(1), { stdio, env: EMPTY_ENV, detached: true }) as ChildProcessWithoutNullStreams;
  } finally {
    fs.closeSync(fd);
  }
}

/** Kills a sandbox's process group; its namespace, with every process in it, dies with the group's leader. */
export function killSandbox(pid: number | undefined) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A random word that marks one pool's processes (it is in their command lines), for finding them afterwards. */
export function sandboxTag(): string {
  return `verity-reward-${crypto.randomBytes(6).toString("hex")}`;
}

// The tools a successful probe found; a later call with the same tools reuses it (a failed probe is retried).
let probedOk: string | null = null;

/**
 * Whether code rewards can run here: the Debian tools are installed and a sandboxed python starts and answers.
 * Without them the console refuses to run code rewards, and `reason` says why.
 */
export function sandboxAvailability(): { ok: true } | { ok: false; reason: string } {
  const tools = JSON.stringify(SANDBOX_TOOLS);
  if (probedOk === tools) return { ok: true };
  const r = probeSandbox();
  probedOk = r.ok ? tools : null;
  return r;
}

function probeSandbox(): { ok: true } | { ok: false; reason: string } {
  const missing = Object.entries(SANDBOX_TOOLS).filter(([, p]) => !fs.existsSync(p));
  if (missing.length) {
    const names = missing.map(([name, p]) => `${name} (${p})`).join(", ");
    const hint = missing.some(([name]) => name === "bwrap") ? ": install the Debian package bubblewrap" : "";
    return { ok: false, reason: `code rewards need a sandbox, and ${names} is missing${hint}` };
  }
  if (!fs.existsSync(HARNESS_FILE)) return { ok: false, reason: `the sandbox harness ${HARNESS_FILE} is missing` };
  const fd = fs.openSync(HARNESS_FILE, "r");
  try {
    const argv = sandboxArgv(DEFAULT_LIMITS, ["probe"]);
    const r = spawnSync(argv[0], argv.slice(1), {
      stdio: ["ignore", "pipe", "pipe", fd],
      env: EMPTY_ENV,
      timeout: 20_000,
    });
    if (r.status === 0 && r.stdout.toString().trim() === "ok") return { ok: true };
    const why = (r.error?.message ?? r.stderr.toString().trim().split("\n").pop()) || `exit code ${r.status}`;
    return { ok: false, reason: `the sandbox (bubblewrap) does not start here: ${why.slice(0, 300)}` };
  } finally {
    fs.closeSync(fd);
  }
}
