// A real Citus cluster for the Citus tests (`npm test -- citus`): a coordinator and two workers, each Debian's
// PostgreSQL 15 with shared_preload_libraries = 'citus', on ports the system chose, data under .data/citus/<random>
// (removed by stop(), unless kept for a benchmark). As root, every server runs as the `postgres` system user. The cluster's database has the
// citus extension on every node, the coordinator in the metadata and both workers added; it is not migrated.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { rawClient } from "@/lib/db/raw-client.ts";
import { PG15_BIN, freePorts, initServer, owner, pgCtl, serverLogTails, serverRoot } from "@/lib/testing/pg15.ts";

/** Why this machine cannot run a Citus cluster, in one sentence; null when it can (PostgreSQL 15 with citus.so). */
export function missingCitus(): string | null {
  if (!fs.existsSync(path.join(PG15_BIN, "postgres")))
    return `Citus is not installed (no PostgreSQL 15 in ${PG15_BIN})`;
  let lib = path.resolve(PG15_BIN, "..", "lib");
  try {
    lib = execFileSync(path.join(PG15_BIN, "pg_config"), ["--pkglibdir"]).toString().trim();
  } catch {
    // pg_config comes with the server's development files; without it the server's own lib folder is the place.
  }
  return fs.existsSync(path.join(lib, "citus.so")) ? null : `Citus is not installed (no citus.so in ${lib})`;
}

export type CitusCluster = {
  /** The coordinator's database: the one the application connects to. */
  url: string;
  /** The same database on each worker, in the order they were added. */
  workerUrls: string[];
  workerPorts: number[];
  /** Each node's maintenance database (`postgres`), the coordinator first: where createCitusDatabase makes another. */
  adminUrls: string[];
  /** Stops the three servers and removes their data. */
  stop: () => Promise<void>;
};

// Small and quick: a test cluster, not a deployment (the data is thrown away). Four shards per distributed table
// (Citus's default is 32) keep distributing a table quick; two per worker still puts two runs on two workers.
const SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  "shared_preload_libraries = 'citus'",
  "shared_buffers = 32MB",
  "max_connections = 100",
  "fsync = off",
  "synchronous_commit = off",
  "full_page_writes = off",
  "citus.shard_count = 4",
  "max_prepared_transactions = 20",
  // Nodes talk over 127.0.0.1 without TLS: libpq in a server run as `postgres` from root would otherwise look for a
  // client certificate in root's home, which it may not read.
  "citus.node_conninfo = 'sslmode=disable'",
];

const NODES = ["coordinator", "worker1", "worker2"];

async function onNode(url: string, sql: string[]): Promise<void> {
  const c = rawClient({ connectionString: url });
  await c.connect();
  try {
    for (const s of sql) await c.query(s);
  } finally {
    await c.end();
  }
}

/** `adminUrl` with its database replaced by `database`. */
export function databaseUrl(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Creates `database` on a cluster whose nodes' maintenance databases are `adminUrls` (the coordinator first): Citus 13
 * does not propagate database creation, so the database and the extension go on every node, then the coordinator is
 * named and the workers added in it. Answers the coordinator's URL of the new database.
 */
export async function createCitusDatabase(adminUrls: string[], database: string): Promise<string> {
  for (const admin of adminUrls) {
    await onNode(admin, [`create database "${database}"`]);
    await onNode(databaseUrl(admin, database), ["create extension citus"]);
  }
  const node = (u: string) => `'${new URL(u).hostname}', ${Number(new URL(u).port)}`;
  const [coordinator, ...workers] = adminUrls;
  await onNode(databaseUrl(coordinator, database), [
    `select citus_set_coordinator_host(${node(coordinator)})`,
    ...workers.map((w) => `select citus_add_node(${node(w)})`),
  ]);
  return databaseUrl(coordinator, database);
}

/** Drops `database` from every node of the cluster (the coordinator first: its connections to the workers go with it). */
export async function dropCitusDatabase(adminUrls: string[], database: string): Promise<void> {
  for (const admin of adminUrls) await onNode(admin, [`drop database if exists "${database}" with (force)`]);
}

/**
 * One more server set up as the cluster's nodes are, in no cluster yet: a worker to add (`citus_add_node`) to a
 * running cluster. Its maintenance database's URL, and a stop that removes its data.
 */
export async function startCitusServer(): Promise<{ adminUrl: string; port: number; stop: () => Promise<void> }> {
  const missing = missingCitus();
  if (missing) throw new Error(missing);
  const [port] = await freePorts(1);
  const who = owner();
  const root = path.resolve(".data", "citus", crypto.randomBytes(4).toString("hex"));
  serverRoot(root, who);
  const dir = path.join(root, "worker");
  const stop = async () => {
    await pgCtl(dir, root, port, "stop", who).catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await initServer(dir, SETTINGS, who);
    await pgCtl(dir, root, port, "start", who);
  } catch (err) {
    await stop();
    throw err;
  }
  return { adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`, port, stop };
}

/**
 * Starts the cluster with database `database` (citus on every node, the workers added), `settings` added to each
 * node's postgresql.conf after the test cluster's own (a benchmark's larger buffers). Throws missingCitus()'s sentence.
 * With `keepAt` (a folder), the cluster's data lives there and stop() leaves it: a later call with the same folder
 * starts the same servers again on the same ports (the workers are named by port in Citus's metadata), with
 * `resumed` true and nothing created.
 */
export async function startCitusCluster(
  database = "verity_citus",
  settings: string[] = [],
  keepAt?: string,
): Promise<CitusCluster & { resumed: boolean }> {
  const missing = missingCitus();
  if (missing) throw new Error(missing);
  const root = keepAt ? path.resolve(keepAt) : path.resolve(".data", "citus", crypto.randomBytes(4).toString("hex"));
  const portsFile = path.join(root, "ports.json");
  const resumed = keepAt !== undefined && fs.existsSync(portsFile);
  const ports: number[] = resumed ? JSON.parse(fs.readFileSync(portsFile, "utf8")) : await freePorts(NODES.length);
  const who = owner();
  if (!resumed) serverRoot(root, who);
  const dirs = NODES.map((n) => path.join(root, n));
  const url = (port: number, db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;
  const up = new Set<number>();
  const stop = async () => {
    for (const i of [...up].reverse()) await pgCtl(dirs[i], root, ports[i], "stop", who).catch(() => undefined);
    up.clear();
    if (!keepAt) fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    if (!resumed) await Promise.all(dirs.map((dir) => initServer(dir, [...SETTINGS, ...settings], who)));
    await Promise.all(
      dirs.map(async (dir, i) => {
        await pgCtl(dir, root, ports[i], "start", who);
        up.add(i);
      }),
    );
    if (!resumed) {
      await createCitusDatabase(
        ports.map((p) => url(p, "postgres")),
        database,
      );
      if (keepAt) fs.writeFileSync(portsFile, JSON.stringify(ports));
    }
    return {
      url: url(ports[0], database),
      workerUrls: ports.slice(1).map((p) => url(p, database)),
      workerPorts: ports.slice(1),
      adminUrls: ports.map((p) => url(p, "postgres")),
      stop,
      resumed,
    };
  } catch (err) {
    const logs = serverLogTails(root, NODES);
    await stop();
    if (logs.length && err instanceof Error) err.message += `\n${logs.join("\n")}`;
    throw err;
  }
}
