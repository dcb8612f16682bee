import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";
import { describe, expect, it } from "vitest";
import { MigrationError, migrate, migrationStatus, readMigrations } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import { shapeFromDatabase } from "@/lib/db/schema-shape.ts";
import { dropsAfterEach } from "@/lib/testing/scratch-suite.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const drops = dropsAfterEach();

async function scratch() {
  const s = await createScratchDatabase("migrate");
  drops.push(s.drop);
  return s.url;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = rawClient({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

function runCli(url: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["bin/migrate.ts"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}

describe("migration runner", () => {
  it("applies every migration once and records it in _prisma_migrations with its checksum", async () => {
    const url = await scratch();
    const files = readMigrations();
    expect(await migrate(url)).toEqual(files.map((f) => f.name));
    expect(await migrate(url)).toEqual([]);
    const rows = await query<{ migration_name: string; checksum: string }>(
      url,
      `select migration_name, checksum from _prisma_migrations order by migration_name`,
    );
    expect(rows).toEqual(files.map((f) => ({ migration_name: f.name, checksum: f.checksum })));
  });

  it("lets two concurrent `npm run db:migrate` processes finish without applying anything twice", async () => {
    const url = await scratch();
    const [a, b] = await Promise.all([runCli(url), runCli(url)]);
    expect(a.code, a.out).toBe(0);
    expect(b.code, b.out).toBe(0);
    const outputs = [a.out, b.out].join("\n");
    // exactly one of them applied the migrations; the other waited on the lock and found nothing to do
    expect(outputs.match(/applied 001_init/g)?.length).toBe(1);
    expect(outputs).toContain("database is up to date");
    const rows = await query<{ n: string }>(url, `select count(*) as n from _prisma_migrations`);
    expect(Number(rows[0].n)).toBe(readMigrations().length);
  });

  it("serialises many in-process runners on the advisory lock", async () => {
    const url = await scratch();
    const results = await Promise.all(Array.from({ length: 5 }, () => migrate(url)));
    expect(results.flat().sort()).toEqual(readMigrations().map((f) => f.name));
  });

  it("refuses an applied migration whose file was edited, naming it", async () => {
    const url = await scratch();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-mig-"));
    fs.mkdirSync(path.join(dir, "001_a"));
    fs.writeFileSync(path.join(dir, "001_a/migration.sql"), "create table a (id int);");
    await migrate(url, { files: readMigrations(dir) });
    fs.writeFileSync(path.join(dir, "001_a/migration.sql"), "create table a (id bigint);");
    await expect(migrate(url, { files: readMigrations(dir) })).rejects.toThrow(
      /Migration 001_a was edited after it was applied/,
    );
    const c = rawClient({ connectionString: url });
    await c.connect();
    const status = await migrationStatus(c, readMigrations(dir));
    await c.end();
    expect(status.edited.map((e) => e.name)).toEqual(["001_a"]);
  });

  it("rolls back a failing migration completely and records nothing for it", async () => {
    const url = await scratch();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-mig-"));
    fs.mkdirSync(path.join(dir, "001_ok"));
    fs.writeFileSync(path.join(dir, "001_ok/migration.sql"), "create table ok (id int);");
    fs.mkdirSync(path.join(dir, "002_bad"));
    fs.writeFileSync(path.join(dir, "002_bad/migration.sql"), "create table half (id int);\nselect 1/0;");
    const err = await migrate(url, { files: readMigrations(dir) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toMatch(/002_bad failed and was rolled back: division by zero/);
    const tables = await query<{ t: string }>(
      url,
      `select table_name as t from information_schema.tables where table_schema='public' order by 1`,
    );
    expect(tables.map((r) => r.t)).toEqual(["_prisma_migrations", "ok"]);
  });

  it("makes the ledger append-only: rows cannot be deleted or rewritten, only marked superseded by a successor", async () => {
    const url = await scratch();
    await migrate(url);
    const c = rawClient({ connectionString: url });
    await c.connect();
    try {
      await c.query(`insert into runs (id) values ('r')`);
      const { rows } = await c.query(
        `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, reward, content_hash)
         values ('t', 'r', 1, 'T', 'scored', 'verifier', 0.5, 'h') returning id`,
      );
      const id = rows[0].id;
      await expect(c.query(`update ledger set reward = 1 where id = $1`, [id])).rejects.toThrow(/append-only/);
      await expect(c.query(`delete from ledger where id = $1`, [id])).rejects.toThrow(/append-only/);
      // marked superseded in the transaction that inserts its successor (012_append_only checks that at commit)
      await c.query("begin");
      await c.query(`update ledger set is_current = false where id = $1`, [id]);
      await c.query(
        `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, reward, content_hash, supersedes_id)
         values ('t', 'r', 1, 'T', 'scored', 'verifier', 0.6, 'h2', $1)`,
        [id],
      );
      await c.query("commit");
      await expect(c.query(`update ledger set is_current = true where id = $1`, [id])).rejects.toThrow(/append-only/);
    } finally {
      await c.end();
    }
  });

  it("detects a database that drifted from the schema (the shape test can fail)", async () => {
    const url = await scratch();
    await migrate(url);
    const c = rawClient({ connectionString: url });
    await c.connect();
    const before = await shapeFromDatabase(c);
    await c.query(`alter table cases add column extra text`);
    await c.query(`create index cases_extra_idx on cases (extra)`);
    const after = await shapeFromDatabase(c);
    await c.end();
    expect(after.columns).not.toEqual(before.columns);
    expect(after.columns).toContain("cases.extra text null");
    expect(after.indexes).toContain("cases index (extra)");
  });
});
