import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { expectedParquetRows, ingestParquetLedger, withParsedReasons } from "@/lib/testing/parquet-data.ts";
import { readParquetFile } from "@/lib/testing/parquet-reader.ts";
import { GET } from "@/app/api/v1/runs/[run]/ledger.parquet/route.ts";

const run = `pq-api-${randomBytes(4).toString("hex")}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-parquet-api-"));
let read: string;
let ingestOnly: string;

const get = (runId: string, query: string, token?: string) =>
  GET(
    new Request(`http://verity.test/api/v1/runs/${encodeURIComponent(runId)}/ledger.parquet${query}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    }),
    { params: Promise.resolve({ run: runId }) },
  );

beforeAll(async () => {
  await ingestParquetLedger(bulkPool(), run);
  const email = `admin-${randomBytes(5).toString("hex")}@test.local`;
  const u = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  read = (await createApiToken({ name: "parquet-read", scopes: ["read"] }, { userId: u.id, email })).token;
  ingestOnly = (await createApiToken({ name: "parquet-ingest", scopes: ["ingest"] }, { userId: u.id, email })).token;
});

describe("GET /api/v1/runs/{run}/ledger.parquet", () => {
  it("streams the run's current entries as a Parquet file to a token with the read scope", async () => {
    const res = await get(run, "?from=1", read);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${run}.ledger.parquet"`);
    expect(res.body).toBeInstanceOf(ReadableStream);
    const file = path.join(dir, "api.parquet");
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const view = await readParquetFile(file);
    expect(view.rows.map(withParsedReasons)).toEqual(await expectedParquetRows(bulkPool(), run, { from: 1 }));
    expect(view.rows.length).toBeGreaterThan(20);
    expect(JSON.parse(view.metadata["verity.export"])).toMatchObject({ run_id: run, from: 1, to: null });
  });

  it("answers 401 without a token and 403 to a token without the read scope", async () => {
    expect((await get(run, "")).status).toBe(401);
    const res = await get(run, "", ingestOnly);
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
  });

  it("answers 404 for an unknown run and 400 naming a bad parameter, as JSON", async () => {
    const missing = await get(`${run}-nope`, "", read);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: "not_found", message: `no run ${JSON.stringify(`${run}-nope`)}` },
    });
    const guardrail = await get(run, "?guardrail=nope", read);
    expect(guardrail.status).toBe(400);
    expect((await guardrail.json()).error.message).toMatch(/^guardrail: expected a guardrail code/);
    const range = await get(run, "?from=3&to=1", read);
    expect((await range.json()).error).toEqual({ code: "bad_request", message: "to: must be at least `from`" });
    // The NDJSON export's `cases` means nothing here, and an unknown parameter is not silently dropped.
    const cases = await get(run, "?cases=0", read);
    expect(cases.status).toBe(400);
    expect((await cases.json()).error.message).toMatch(/cases/);
    expect((await get(run, "?form=1", read)).status).toBe(400);
  });
});
