// A PostgreSQL primary and its hot standby for the replica tests, from Debian's PostgreSQL 15 binaries
// (/usr/lib/postgresql/15/bin; the embedded PostgreSQL has no pg_basebackup). The primary is migrated by the project's
// runner, copied with `pg_basebackup -R`, and the copy started as a streaming standby. Data under
// .data/standby-pair/<random>, removed by stop(). As root, every server runs as the `postgres` system user.
import { spawn, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { rawClient } from "@/lib/db/raw-client.ts";
import { migrate } from "@/lib/db/migrate.ts";

export const PG15_BIN = process.env.VERITY_PG15_BIN ?? "/usr/lib/postgresql/15/bin";
const TOOLS = ["initdb", "postgres", "pg_ctl", "pg_basebackup"];

/** What is missing to run a primary and a standby here, in one sentence; null when nothing is. */
export function missingStandbyTools(): string | null {
  const missing = TOOLS.filter((t) => !fs.existsSync(path.join(PG15_BIN, t)));
  if (missing.length === 0) return null;
  return (
    `The replica tests need PostgreSQL 15's ${missing.join(", ")} in ${PG15_BIN}: ` +
    "`apt-get install postgresql-15` (postgresql-client-15 has pg_basebackup, postgresql-15 initdb and postgres), " +
    "or set VERITY_PG15_BIN to a folder that has them."
  );
}

export type StandbyPair = {
  primaryUrl: string;
  standbyUrl: string;
  stopStandby: () => Promise<void>;
  startStandby: () => Promise<void>;
  /** Stops both servers and removes their data. */
  stop: () => Promise<void>;
};

type Owner = { uid: number; gid: number } | null;

function owner(): Owner {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  return { uid, gid };
}

function run(bin: string, args: string[], who: Owner): Promise<void> {
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

async function waitForServer(url: string, timeoutMs = 20_000): Promise<void> {
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

// Small and quick: a test server, not a deployment. fsync off is safe here (the data is thrown away).
const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  "shared_buffers = 32MB",
  "fsync = off",
  "synchronous_commit = off",
  "full_page_writes = off",
  "wal_level = replica",
  "max_wal_senders = 4",
  "hot_standby = on",
  "wal_receiver_status_interval = 1s",
];

/**
 * Two distinct ports nobody listens on now, both held open until both are chosen. The pair takes ports the system
 * hands out rather than fixed ones, so a second checkout's tests (or a server left running) on this machine cannot
 * take them first.
 */
async function freePorts(): Promise<[number, number]> {
  const servers = [net.createServer(), net.createServer()];
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
  return [ports[0], ports[1]];
}

/**
 * Starts a primary with database `database` migrated, and a hot standby of it, each on a port the system chose.
 * Throws missingStandbyTools()'s sentence when the binaries are not there.
 */
export async function startStandbyPair(database = "verity_replica"): Promise<StandbyPair> {
  const missing = missingStandbyTools();
  if (missing) throw new Error(missing);
  const ports = await freePorts();
  const who = owner();
  const root = path.resolve(".data", "standby-pair", crypto.randomBytes(4).toString("hex"));
  const primaryDir = path.join(root, "primary");
  const standbyDir = path.join(root, "standby");
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  fs.chmodSync(path.dirname(root), 0o755);
  fs.chmodSync(root, 0o755);
  if (who) fs.chownSync(root, who.uid, who.gid);
  const url = (port: number, db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;
  const ctl = (dir: string, port: number, action: "start" | "stop") =>
    action === "start"
      ? run(
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
      : run("pg_ctl", ["-D", dir, "-w", "-t", "30", "-m", "fast", "stop"], who);

  let primaryUp = false;
  let standbyUp = false;
  const stop = async () => {
    if (standbyUp) await ctl(standbyDir, ports[1], "stop").catch(() => undefined);
    if (primaryUp) await ctl(primaryDir, ports[0], "stop").catch(() => undefined);
    standbyUp = primaryUp = false;
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await run("initdb", ["-D", primaryDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"], who);
    fs.appendFileSync(path.join(primaryDir, "postgresql.conf"), "\n" + SETTINGS.join("\n") + "\n");
    await ctl(primaryDir, ports[0], "start");
    primaryUp = true;
    const admin = rawClient({ connectionString: url(ports[0], "postgres") });
    await admin.connect();
    await admin.query(`create database "${database}"`).finally(() => admin.end());
    await migrate(url(ports[0], database));
    await run(
      "pg_basebackup",
      [
        "-h",
        "127.0.0.1",
        "-p",
        String(ports[0]),
        "-U",
        "postgres",
        "-D",
        standbyDir,
        "-R",
        "-X",
        "stream",
        "-c",
        "fast",
      ],
      who,
    );
    const startStandby = async () => {
      if (standbyUp) return;
      await ctl(standbyDir, ports[1], "start");
      standbyUp = true;
      // A hot standby answers once it has replayed to a consistent point: seconds on a loaded machine.
      await waitForServer(url(ports[1], database), 60_000);
    };
    await startStandby();
    return {
      primaryUrl: url(ports[0], database),
      standbyUrl: url(ports[1], database),
      startStandby,
      stopStandby: async () => {
        if (!standbyUp) return;
        await ctl(standbyDir, ports[1], "stop");
        standbyUp = false;
      },
      stop,
    };
  } catch (err) {
    // The servers' own logs say why (a port in use, a standby that never became consistent): keep their tails.
    const logs = ["primary", "standby"]
      .map((name) => {
        const file = path.join(root, `${name}.log`);
        const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").slice(-8).join("\n") : "";
        return text && `${name}.log:\n${text}`;
      })
      .filter(Boolean);
    await stop();
    if (logs.length && err instanceof Error) err.message += `\n${logs.join("\n")}`;
    throw err;
  }
}
