// Debian's PostgreSQL 15 servers for the tests that need a server the embedded PostgreSQL cannot be (a hot standby,
// a Citus cluster): their binaries, the OS user they run as (as root, the `postgres` system user), free ports,
// initdb and pg_ctl, and waiting for a server to answer.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { rawClient } from "@/lib/db/raw-client.ts";

export const PG15_BIN = process.env.VERITY_PG15_BIN ?? "/usr/lib/postgresql/15/bin";

/** The OS user a server runs as: null for this process's own, the `postgres` system user when running as root. */
export type Owner = { uid: number; gid: number } | null;

export function owner(): Owner {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

/** Runs one of PostgreSQL 15's programs as `who`; rejects with its output when it exits non-zero. */
export function runPg15(bin: string, args: string[], who: Owner): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(PG15_BIN, bin), args, {
      stdio: ["ignore", "pipe", "pipe"],
      ...(who ? { uid: who.uid, gid: who.gid } : {}),
      env: { ...process.env, LC_ALL: "C", PGPASSWORD: "" },
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(" ")} exited ${code}: ${out.trim()}`)),
    );
  });
}

export async function waitForServer(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = rawClient({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await c.connect();
      await c.query("select 1");
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await c.end().catch(() => undefined);
    }
  }
}

/**
 * `n` distinct ports nobody listens on now, all held open until all are chosen. The servers take ports the system
 * hands out rather than fixed ones, so a second checkout's tests (or a server left running) on this machine cannot
 * take them first.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => net.createServer());
  const ports = await Promise.all(
    servers.map(
      (srv) =>
        new Promise<number>((resolve, reject) => {
          srv.on("error", reject);
          srv.listen(0, "127.0.0.1", () => resolve((srv.address() as net.AddressInfo).port));
        }),
    ),
  );
  await Promise.all(servers.map((srv) => new Promise((resolve) => srv.close(resolve))));
  return ports;
}

/** A folder a server run as `who` can own and enter: made with mode 755 (and its parent), owned by `who`. */
export function serverRoot(root: string, who: Owner): void {
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  fs.chmodSync(path.dirname(root), 0o755);
  fs.chmodSync(root, 0o755);
  if (who) fs.chownSync(root, who.uid, who.gid);
}

/** initdb of a test server (trust authentication, UTF-8, C locale) with `settings` appended to its postgresql.conf. */
export async function initServer(dir: string, settings: string[], who: Owner): Promise<void> {
  await runPg15("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"], who);
  fs.appendFileSync(path.join(dir, "postgresql.conf"), "\n" + settings.join("\n") + "\n");
}

/** pg_ctl start (on `port`, its socket and log in `root`) or a fast stop of the server in `dir`. */
export function pgCtl(dir: string, root: string, port: number, action: "start" | "stop", who: Owner): Promise<void> {
  return action === "start"
    ? runPg15(
        "pg_ctl",
        [
          "-D",
          dir,
          "-w",
          "-t",
          "30",
          "-l",
          path.join(root, `${path.basename(dir)}.log`),
          "-o",
          `-p ${port} -k ${root}`,
          "start",
        ],
        who,
      )
    : runPg15("pg_ctl", ["-D", dir, "-w", "-t", "30", "-m", "fast", "stop"], who);
}

/** The last lines of each named server's log in `root` (they say why a server did not start), for an error message. */
export function serverLogTails(root: string, names: string[]): string[] {
  return names
    .map((name) => {
      const file = path.join(root, `${name}.log`);
      const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").slice(-8).join("\n") : "";
      return text && `${name}.log:\n${text}`;
    })
    .filter(Boolean);
}
