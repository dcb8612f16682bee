// The code-reward sandbox against hostile code: each call ends as that call's error, timeout or invalid_output, the
// pool answers the next call, the console's process stays small, and no sandboxed process outlives its worker.
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_TOOLS } from "./command.ts";
import { checkPythonSyntax, CodeRewardPool, sandboxAvailability, type CodeOutcome } from "./index.ts";

const SECRET = "postgresql://verity:sandbox-must-not-see-this@127.0.0.1:5432/verity";
const previousUrl = process.env.DATABASE_URL;
const pools: CodeRewardPool[] = [];

beforeAll(() => {
  // The console's environment holds the database's address: the sandbox must not see it.
  process.env.DATABASE_URL ??= SECRET;
  expect(sandboxAvailability()).toEqual({ ok: true });
});
afterAll(() => {
  if (previousUrl === undefined) delete process.env.DATABASE_URL;
});
afterEach(async () => {
  for (const p of pools.splice(0)) await closeWithoutStrays(p);
});

/** Pids whose command line holds `pattern` (pgrep -f), or that are in process group `group` (pgrep -g). */
function pgrep(args: string[]): number[] {
  try {
    return execFileSync("pgrep", args, { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function eventually(check: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (check()) return true;
  }
  return check();
}

/** Closes the pool and checks that nothing of it is left: no process with its tag, none in a worker's group. */
async function closeWithoutStrays(pool: CodeRewardPool) {
  const groups = pool.workerGroups();
  await pool.close();
  const strays = () => [...pgrep(["-f", pool.tag]), ...groups.flatMap((g) => pgrep(["-g", String(g)]))];
  expect(await eventually(() => strays().length === 0), `stray processes ${strays().join(" ")}`).toBe(true);
}

/** A reward that answers 1 for {"good": true} and runs `body` for any other payload. */
function hostile(body: string, top = ""): string {
  const indented = body
    .trim()
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
  return `import json, os\n${top}\n\ndef cal_reward(payload):\n    if json.loads(payload).get("good"):\n        return 1.0\n${indented}\n`;
}

function pool(source: string, limits = {}) {
  const p = new CodeRewardPool({ source, workers: 1, limits: { timeoutMs: 2000, ...limits } });
  pools.push(p);
  return p;
}

const GOOD = JSON.stringify({ good: true });
const BAD = JSON.stringify({ good: false });

/** Runs the hostile call, then checks the pool is healthy: the next call is ok, with one worker's 3 processes. */
async function hostileCall(source: string, limits = {}): Promise<CodeOutcome> {
  const p = pool(source, limits);
  const bad = await p.run(BAD);
  const good = await p.run(GOOD);
  expect(good).toMatchObject({ status: "ok", reward: 1 });
  // The failed worker's sandbox is gone: only the replacement's bwrap, its pid 1 and its python remain.
  expect(await eventually(() => pgrep(["-f", p.tag]).length === 3), `processes ${pgrep(["-f", p.tag])}`).toBe(true);
  return bad;
}

describe("hostile code ends as that call's failure", () => {
  it("cannot reach the network: not the console's database, not the internet", async () => {
    const port = new URL(process.env.DATABASE_URL!).port || "5432";
    const local = await hostileCall(hostile(`import socket\nsocket.create_connection(("127.0.0.1", ${port}), 2)`));
    expect(local).toMatchObject({ status: "error", error: expect.stringMatching(/ConnectionRefusedError/) });
    const outside = await hostileCall(hostile(`import socket\nsocket.create_connection(("1.1.1.1", 80), 2)`));
    expect(outside).toMatchObject({ status: "error", error: expect.stringMatching(/OSError|unreachable/) });
  });

  it("cannot read /etc/shadow", async () => {
    const o = await hostileCall(hostile(`return float(len(open("/etc/shadow").read()))`));
    expect(o).toMatchObject({ status: "error", error: expect.stringMatching(/FileNotFoundError.*\/etc\/shadow/) });
  });

  it("cannot see the console's environment, through os.environ or /proc", async () => {
    const url = process.env.DATABASE_URL!;
    const direct = await hostileCall(hostile(`return float(len(os.environ["DATABASE_URL"]))`));
    expect(direct).toMatchObject({ status: "error", error: "KeyError: 'DATABASE_URL'" });
    const all = await hostileCall(
      hostile(`
for pid in os.listdir("/proc"):
    if pid.isdigit():
        print(pid, open(f"/proc/{pid}/environ", "rb").read())
raise RuntimeError(repr(dict(os.environ)))`),
    );
    expect(all.status).toBe("error");
    for (const text of [all.stdout, all.stderr, all.error ?? ""]) {
      expect(text).not.toContain(url);
      expect(text).not.toContain("DATABASE_URL");
    }
    expect(all.stdout).toMatch(/^1 b''/m); // the sandbox's own processes were listed, with empty environments
  });

  it("cannot write outside its private /tmp, and /tmp is bounded", async () => {
    for (const target of ["/usr/lib/evil.py", "/evil", "/proc/evil"]) {
      const o = await hostileCall(hostile(`open("${target}", "w").write("x")`));
      expect(o).toMatchObject({ status: "error", error: expect.stringMatching(/OSError|FileNotFoundError/) });
    }
    const big = await hostileCall(hostile(`open("/tmp/big", "wb").write(b"x" * (64 * 2**20))`));
    expect(big).toMatchObject({ status: "error", error: expect.stringMatching(/File too large|No space/) });
    const fine = await pool(
      `def cal_reward(p):\n    open("/tmp/x", "w").write("0.25")\n    return float(open("/tmp/x").read())\n`,
    ).run("{}");
    expect(fine).toMatchObject({ status: "ok", reward: 0.25 });
  });

  it("a fork bomb hits the process limit and the timeout, and its processes die with the worker", async () => {
    const o = await hostileCall(hostile(`while True:\n    try:\n        os.fork()\n    except OSError:\n        pass`));
    expect(o).toMatchObject({ status: "timeout", reward: null });
  });

  it("cannot allocate 10 GB", async () => {
    const o = await hostileCall(hostile(`return float(len(bytearray(10 * 2**30)))`));
    expect(o).toMatchObject({ status: "error", error: "MemoryError" });
  });

  it("an endless loop is killed at the wall-clock timeout", async () => {
    const started = performance.now();
    const o = await hostileCall(hostile(`while True:\n    pass`), { timeoutMs: 1000 });
    expect(o).toMatchObject({ status: "timeout", error: "took longer than 1000 ms" });
    expect(performance.now() - started).toBeLessThan(4000);
  });

  it("printing nothing, garbage, NaN or 1e309 is invalid_output, never a 0", async () => {
    const cases: [string, RegExp][] = [
      [`pass`, /returned NoneType and printed nothing/],
      [`print("the reward is high")`, /not a number: 'the reward is high'/],
      [`print(float("nan"))`, /'nan': not a finite number/],
      [`return float("nan")`, /returned nan: not a finite number/],
      [`print("1e309")`, /'1e309': not a finite number/],
      [`return 1e309`, /returned inf: not a finite number/],
      [`return True`, /returned bool and printed nothing/],
    ];
    for (const [body, error] of cases) {
      const o = await hostileCall(hostile(body));
      expect(o, body).toMatchObject({ status: "invalid_output", reward: null, error: expect.stringMatching(error) });
    }
  });

  it("printing 100 MB is invalid_output and the console keeps at most the limit", async () => {
    const rss = process.memoryUsage().rss;
    const printed = await hostileCall(hostile(`print("x" * 100_000_000)`));
    expect(printed).toMatchObject({ status: "invalid_output", error: "printed more than 1048576 characters" });
    expect(printed.stdout.length).toBe(1048576);
    const raw = await hostileCall(hostile(`os.write(1, b"x" * 100_000_000)\nreturn 1.0`));
    expect(raw).toMatchObject({ status: "invalid_output", error: "printed more than 1048576 characters" });
    expect(raw.stderr.length).toBeLessThanOrEqual(1048576);
    expect(process.memoryUsage().rss - rss).toBeLessThan(80 * 2 ** 20);
  });

  it("os._exit(3) ends the call as an error and the worker is replaced", async () => {
    const o = await hostileCall(hostile(`os._exit(3)`));
    expect(o).toMatchObject({ status: "error", error: "the reward's process ended (exit code 3)" });
  });

  it("a raised exception is an error with the traceback's last line, the traceback kept in stderr", async () => {
    const o = await hostileCall(hostile(`print("looking")\nraise ValueError("no reference in this payload")`));
    expect(o).toMatchObject({
      status: "error",
      error: "ValueError: no reference in this payload",
      stdout: "looking\n",
    });
    expect(o.stderr).toMatch(/File "reward.py", line 8, in cal_reward\n\s+raise ValueError/);
  });

  it("importing a missing module fails every call of that version, and other versions run", async () => {
    const p = pool(hostile("return 1.0", "import verity_no_such_module"));
    for (const payload of [GOOD, BAD]) {
      expect(await p.run(payload)).toMatchObject({
        status: "error",
        error: "ModuleNotFoundError: No module named 'verity_no_such_module'",
      });
    }
    expect(await pool(hostile("return 0.5")).run(BAD)).toMatchObject({ status: "ok", reward: 0.5 });
  });
});

describe("code rewards", () => {
  it("runs code of 1 MB", async () => {
    const source = `DATA = [${"7, ".repeat(350_000)}]\n\ndef cal_reward(payload):\n    return sum(DATA) / len(DATA)\n`;
    expect(source.length).toBeGreaterThan(2 ** 20);
    expect(await checkPythonSyntax(source)).toEqual({ ok: true });
    expect(await pool(source).run("{}")).toMatchObject({ status: "ok", reward: 7 });
  });

  it("takes the returned number as it is (any float), else the last line printed", async () => {
    const p = pool(
      `import json\ndef cal_reward(payload):\n    v = json.loads(payload)\n    print("noise")\n    if v["print"]:\n        print(v["x"])\n        return None\n    return v["x"]\n`,
    );
    expect(await p.run(JSON.stringify({ print: false, x: -2.5 }))).toMatchObject({ status: "ok", reward: -2.5 });
    expect(await p.run(JSON.stringify({ print: false, x: 7 }))).toMatchObject({ status: "ok", reward: 7 });
    expect(await p.run(JSON.stringify({ print: true, x: 1e300 }))).toMatchObject({ status: "ok", reward: 1e300 });
    expect(await p.run(JSON.stringify({ print: true, x: 0.5 }))).toMatchObject({
      status: "ok",
      reward: 0.5,
      stdout: "noise\n0.5\n",
    });
  });

  it("runs many payloads across warm workers, in payload order, reporting each as it ends", async () => {
    const p = new CodeRewardPool({ source: `def cal_reward(payload):\n    return float(payload)\n`, workers: 2 });
    pools.push(p);
    const seen: number[] = [];
    const outcomes = await p.runMany(
      Array.from({ length: 200 }, (_, i) => String(i)),
      (i) => seen.push(i),
    );
    expect(outcomes.map((o) => o.reward)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(p.workerGroups()).toHaveLength(2); // warm: the same two workers served every call
  });

  it("closing the pool stops the calls in flight and queued as unavailable, not as the reward's errors", async () => {
    const p = new CodeRewardPool({ source: `import time\ndef cal_reward(payload):\n    time.sleep(5)\n`, workers: 1 });
    pools.push(p);
    const calls = [p.run("{}"), p.run("{}")];
    await new Promise((r) => setTimeout(r, 300));
    await p.close();
    for (const o of await Promise.all(calls)) {
      expect(o).toMatchObject({ status: "unavailable", reward: null, error: "the pool is closed" });
    }
    expect(await p.run("{}")).toMatchObject({ status: "unavailable", error: "the pool is closed" });
  });

  it("replaces a worker between calls once it has used half its CPU seconds", async () => {
    const p = pool(
      `import time\ndef cal_reward(payload):\n    end = time.process_time() + 0.6\n    while time.process_time() < end:\n        pass\n    return 1.0\n`,
      { cpuSeconds: 1, timeoutMs: 10_000 },
    );
    expect(await p.run("{}")).toMatchObject({ status: "ok", reward: 1 });
    const first = p.workerGroups();
    expect(await p.run("{}")).toMatchObject({ status: "ok", reward: 1 });
    expect(p.workerGroups()).not.toEqual(first);
  });

  it("a syntax error names its line and column, checked in the sandbox", async () => {
    expect(await checkPythonSyntax("def cal_reward(payload):\n    return 1\n")).toEqual({ ok: true });
    expect(await checkPythonSyntax("import json\n\ndef cal_reward(payload:\n    return 1\n")).toMatchObject({
      ok: false,
      line: 3,
      message: expect.stringMatching(/never closed|invalid syntax/),
    });
    expect(await checkPythonSyntax("def cal_reward(payload):\nreturn 1\n")).toMatchObject({
      ok: false,
      line: 2,
      column: 1,
      message: "expected an indented block after function definition on line 1",
    });
    expect(await checkPythonSyntax("x = 1\0\n")).toMatchObject({
      ok: false,
      line: 1,
      message: expect.stringMatching(/null bytes/),
    });
  });

  it("without bubblewrap the pool refuses, says why, and runs nothing", async () => {
    const real = SANDBOX_TOOLS.bwrap;
    SANDBOX_TOOLS.bwrap = "/nonexistent/bwrap";
    try {
      const why = sandboxAvailability();
      expect(why).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/bwrap.*install the Debian package bubblewrap/),
      });
      const p = pool("def cal_reward(payload):\n    return 1.0\n");
      const o = await p.run("{}");
      expect(o).toMatchObject({ status: "unavailable", reward: null, error: expect.stringMatching(/bubblewrap/) });
      expect(p.workerGroups()).toEqual([]);
      await expect(checkPythonSyntax("x = 1")).rejects.toThrow(/bubblewrap/);
    } finally {
      SANDBOX_TOOLS.bwrap = real;
    }
    expect(sandboxAvailability()).toEqual({ ok: true });
  });
});
