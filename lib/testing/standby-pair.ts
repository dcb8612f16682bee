// A PostgreSQL primary and its hot standby for the replica tests, from Debian's PostgreSQL 15 binaries
// (/usr/lib/postgresql/15/bin; the embedded PostgreSQL has no pg_basebackup). The primary is migrated by the project's
// runner, copied with `pg_basebackup -R`, and the copy started as a streaming standby. Data under
// .data/standby-pair/<random>, removed by stop(). As root, every server runs as the `postgres` system user.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { rawClient } from "@/lib/db/raw-client.ts";
import { migrate } from "@/lib/db/migrate.ts";
import {
  PG15_BIN,
  freePorts,
  initServer,
  owner,
  pgCtl,
  runPg15,
  serverLogTails,
  serverRoot,
  waitForServer,
} from "@/lib/testing/pg15.ts";

export { PG15_BIN };
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
 * Starts a primary with database `database` migrated, and a hot standby of it, each on a port the system chose.
 * Throws missingStandbyTools()'s sentence when the binaries are not there.
 */
export async function startStandbyPair(database = "verity_replica"): Promise<StandbyPair> {
  const missing = missingStandbyTools();
  if (missing) throw new Error(missing);
  const ports = await freePorts(2);
  const who = owner();
  const root = path.resolve(".data", "standby-pair", crypto.randomBytes(4).toString("hex"));
  const primaryDir = path.join(root, "primary");
  const standbyDir = path.join(root, "standby");
  serverRoot(root, who);
  const url = (port: number, db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;
  const ctl = (dir: string, port: number, action: "start" | "stop") => pgCtl(dir, root, port, action, who);

  let primaryUp = false;
  let standbyUp = false;
  const stop = async () => {
    if (standbyUp) await ctl(standbyDir, ports[1], "stop").catch(() => undefined);
    if (primaryUp) await ctl(primaryDir, ports[0], "stop").catch(() => undefined);
    standbyUp = primaryUp = false;
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await initServer(primaryDir, SETTINGS, who);
    await ctl(primaryDir, ports[0], "start");
    primaryUp = true;
    const admin = rawClient({ connectionString: url(ports[0], "postgres") });
    await admin.connect();
    await admin.query(`create database "${database}"`).finally(() => admin.end());
    await migrate(url(ports[0], database));
    await runPg15(
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
    const logs = serverLogTails(root, ["primary", "standby"]);
    await stop();
    if (logs.length && err instanceof Error) err.message += `\n${logs.join("\n")}`;
    throw err;
  }
}
