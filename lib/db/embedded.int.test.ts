import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type ProcessOutput = { code: number | null; out: string; err: string };
function runTsx(args: string[], env: NodeJS.ProcessEnv, killAfterLine = false): Promise<ProcessOutput> {
  return new Promise((resolve) => {
    // node itself with tsx's loader (not the tsx wrapper), so SIGKILL hits the process that owns the database
    const child = spawn(process.execPath, ["--import", "tsx", ...args], { cwd: ROOT, env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (killAfterLine && out.includes("\n")) child.kill("SIGKILL");
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("embedded PostgreSQL (DATABASE_URL unset)", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-embedded-"));
  let env: NodeJS.ProcessEnv;

  afterAll(() => {
    // stop a server orphaned by the SIGKILL case, if one is still up
    const pidFile = path.join(dataDir, "pg", "postmaster.pid");
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
      try {
        process.kill(pid, "SIGINT");
      } catch {
        /* gone */
      }
    }
  });

  it("keeps data across a stop and start, and reuses a server left running by a killed process", async () => {
    const port = await freePort();
    env = { ...process.env, DATABASE_URL: "", VERITY_DATA_DIR: dataDir, VERITY_PG_PORT: String(port) };
    delete env.DATABASE_URL;
    const fixture = "lib/testing/embedded-child.ts";

    const first = await runTsx([fixture, "write"], env);
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ startedHere: true, rows: ["survives restarts"] });

    // stopped cleanly: the next start starts it again and finds the row
    const second = await runTsx([fixture, "read"], env);
    expect(second.code, second.err).toBe(0);
    expect(JSON.parse(second.out)).toEqual({ startedHere: true, rows: ["survives restarts"] });

    // killed without a chance to stop the server: the next start reuses the running server
    const killed = await runTsx([fixture, "hang"], env, true);
    expect(killed.code).toBeNull();
    const reused = await runTsx([fixture, "read"], env);
    expect(reused.code, reused.err).toBe(0);
    expect(JSON.parse(reused.out)).toEqual({ startedHere: false, rows: ["survives restarts"] });
  }, 120_000);
});

describe("an embedded PostgreSQL that will not start", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-broken-"));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("says what the server said, after one more try", async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      VERITY_DATA_DIR: dataDir,
      VERITY_PG_PORT: String(await freePort()),
    };
    delete env.DATABASE_URL;
    const fixture = "lib/testing/embedded-child.ts";
    const made = await runTsx([fixture, "read"], env);
    expect(made.code, made.err).toBe(0);
    // a setting the server refuses at start (postgresql.auto.conf is read after postgresql.conf)
    fs.appendFileSync(path.join(dataDir, "pg", "postgresql.auto.conf"), "\nshared_buffers = 'plenty'\n");
    const refused = await runTsx([fixture, "read"], env);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(`Could not start the embedded PostgreSQL in ${path.join(dataDir, "pg")} on port`);
    expect(refused.err).toMatch(/the server said: .*invalid value for parameter "shared_buffers": "plenty"/);
  }, 120_000);
});

describe("a PostgreSQL already answering on VERITY_PG_PORT", () => {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), "verity-own-"));
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "verity-other-"));
  afterAll(() => {
    for (const dir of [own, other]) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is reused only when its data directory is this checkout's; otherwise refused, naming both", async () => {
    const port = await freePort();
    const base: NodeJS.ProcessEnv = { ...process.env, VERITY_PG_PORT: String(port) };
    delete base.DATABASE_URL;
    const fixture = "lib/testing/embedded-child.ts";
    const server = await runTsx([fixture, "hang"], { ...base, VERITY_DATA_DIR: own }, true);
    expect(server.code).toBeNull();
    try {
      // the same directory through a symbolic link is the same directory
      const link = path.join(other, "link");
      fs.symlinkSync(own, link);
      const same = await runTsx([fixture, "hang"], { ...base, VERITY_DATA_DIR: link }, true);
      expect(JSON.parse(same.out), same.err).toEqual({ startedHere: false, rows: [] });

      for (const dataDir of [other, path.join(other, "does-not-exist")]) {
        const refused = await runTsx([fixture, "read"], { ...base, VERITY_DATA_DIR: dataDir });
        expect(refused.code).not.toBe(0);
        expect(refused.err).toContain(
          `The PostgreSQL answering on port ${port} keeps its data in ${fs.realpathSync(path.join(own, "pg"))}, ` +
            `not in this checkout's ${path.join(fs.realpathSync(other), path.relative(other, dataDir), "pg")} ` +
            "(VERITY_DATA_DIR): stop that server, or set VERITY_PG_PORT to a free port.",
        );
      }
      expect(fs.existsSync(path.join(other, "pg"))).toBe(false);
    } finally {
      const pid = Number(fs.readFileSync(path.join(own, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(pid, "SIGINT");
      for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);
});

describe("embedded PostgreSQL below a folder the postgres user cannot enter", () => {
  // As root, initdb and postgres run as the postgres user; a checkout inside `mktemp -d` (mode 700) hides them.
  it.skipIf(process.getuid?.() !== 0)(
    "says which folder and what to do, instead of a spawn error",
    async () => {
      const closed = fs.mkdtempSync(path.join(os.tmpdir(), "verity-closed-"));
      try {
        expect(fs.statSync(closed).mode & 0o777).toBe(0o700);
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          VERITY_DATA_DIR: path.join(closed, "inner", "data"),
          VERITY_PG_PORT: String(await freePort()),
        };
        delete env.DATABASE_URL;
        const r = await runTsx(["lib/testing/embedded-child.ts", "read"], env);
        expect(r.code).not.toBe(0);
        expect(r.err).toContain(
          `The embedded PostgreSQL runs as the postgres user, which cannot enter ${closed} (no execute permission for others)`,
        );
        expect(r.err).not.toContain("EACCES");
      } finally {
        fs.rmSync(closed, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe("a bad DATABASE_URL", () => {
  it("gives one clear sentence for an unreachable server, not a stack trace", async () => {
    const port = await freePort(); // nothing listens there
    const r = await runTsx(["bin/migrate.ts"], {
      ...process.env,
      DATABASE_URL: `postgresql://someone:secret@127.0.0.1:${port}/verity`,
    });
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      `db:migrate: Cannot connect to the database at postgresql://someone:***@127.0.0.1:${port}/verity: nothing is listening there. Check DATABASE_URL.`,
    );
  });

  it("names the variable when it is not a postgres URL", async () => {
    const r = await runTsx(["bin/migrate.ts"], { ...process.env, DATABASE_URL: "mysql://localhost/db" });
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      "db:migrate: Invalid environment: DATABASE_URL must be a postgres:// or postgresql:// URL.",
    );
  });

  it("says so when the database does not exist", async () => {
    const admin = new URL(process.env.VERITY_TEST_ADMIN_URL!);
    admin.pathname = "/no_such_database_here";
    const r = await runTsx(["bin/migrate.ts"], { ...process.env, DATABASE_URL: admin.toString() });
    expect(r.code).toBe(1);
    expect(r.err).toContain("that database does not exist. Check DATABASE_URL.");
    expect(r.err.split("\n").filter(Boolean)).toHaveLength(1);
  });
});
