// `npm start` stopped the way supervisors, containers, CI and `timeout` stop it: a signal to the PID they started
// (npm's). Each start has its own ports and data directory, so nothing is shared with another checkout or test.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConsoleIfStale, freePort } from "@/lib/testing/console-process.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Every process whose parent chain leads to `pid` (from /proc). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent)
      if (pp === p && !out.includes(c)) {
        out.push(c);
        walk(c);
      }
  };
  walk(pid);
  return out;
}

/** Processes whose command line names `text` (the postgres of one data directory). */
function processesNaming(text: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").includes(text)) out.push(+name);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

const alive = (pids: number[]) =>
  pids.filter((p) => {
    try {
      process.kill(p, 0);
      return !fs.readFileSync(`/proc/${p}/stat`, "utf8").includes(") Z ");
    } catch {
      return false;
    }
  });

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, () => s.close(() => resolve(true)));
  });

async function waitFor(ok: () => Promise<boolean>, what: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what()} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("npm start, stopped by a signal to its PID", () => {
  const dataDirs: string[] = [];

  beforeAll(async () => {
    // The console is served from the production build; a stale one is built here, once, as `npm start` would.
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" };
    expect(await buildConsoleIfStale(env, () => undefined)).toBe(true);
  }, 900_000);

  afterAll(() => {
    for (const dataDir of dataDirs) {
      for (const pid of processesNaming(path.join(dataDir, "pg"))) process.kill(pid, "SIGKILL");
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const)
    it(`${signal}: the console and the embedded PostgreSQL stop, the port is freed, "stopped" is said`, async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-start-"));
      dataDirs.push(dataDir);
      const [port, pgPort] = [await freePort(), await freePort()];
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        VERITY_PG_PORT: String(pgPort),
        VERITY_DATA_DIR: dataDir,
        VERITY_DEMO: "0",
      };
      delete env.DATABASE_URL;
      const npm = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      npm.stdout.on("data", (d) => (out += d));
      npm.stderr.on("data", (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
      try {
        const healthy = () =>
          fetch(`http://127.0.0.1:${port}/api/health`).then(
            (r) => r.ok,
            () => false,
          );
        await waitFor(healthy, () => `the console did not serve (output: ${out})`, 120_000);
        await waitFor(
          async () => out.includes("console ready"),
          () => `no "console ready" in ${out}`,
          5_000,
        );
        const tree = descendants(npm.pid!);
        // a first start says what it is doing before each slow part
        const lines = out.split("\n").filter((l) => l.startsWith("verity: "));
        expect(lines.slice(0, 5)).toEqual([
          `verity: creating a new database cluster in ${path.join(dataDir, "pg")}…`,
          `verity: starting the embedded PostgreSQL on port ${pgPort}…`,
          `verity: started the embedded PostgreSQL (${dataDir}/pg)`,
          "verity: applying database migrations…",
          expect.stringMatching(/^verity: applied migrations: 001_init, /),
        ]);
        expect(lines.slice(5)).toEqual([
          "verity: starting the console…",
          expect.stringMatching(
            new RegExp(`^verity: console ready at http://localhost:${port} \\(\\d+ s since start\\)$`),
          ),
        ]);
        expect(processesNaming(`-D ${path.join(dataDir, "pg")} `)).toHaveLength(1);

        npm.kill(signal);
        expect(await exited).toBe(0);
        expect(out).toContain(`verity: ${signal}: stopping…\nverity: stopped\n`);
        expect(await portIsFree(port)).toBe(true);
        expect(processesNaming(path.join(dataDir, "pg"))).toEqual([]);
        expect(alive(tree)).toEqual([]);
      } finally {
        if (npm.exitCode === null) npm.kill("SIGKILL");
      }
    }, 180_000);
});
