// The v1 NDJSON export and `verity export` with a search: the matching entries only, a bad search a 400 (exit 2)
// naming where it is wrong.
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { run as exportCommand } from "@/lib/cli/export.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";
import { SEARCH_LINES, RUN as TEXTS } from "@/lib/testing/search-data.ts";
import { GET } from "@/app/api/v1/runs/[run]/ledger.ndjson/route.ts";

const suffix = randomBytes(4).toString("hex");
const run = `${TEXTS}-${suffix}`;
let read: string;

const get = (query: string) =>
  GET(
    new Request(`http://verity.test/api/v1/runs/${run}/ledger.ndjson?${query}`, {
      headers: { authorization: `Bearer ${read}` },
    }),
    { params: Promise.resolve({ run }) },
  );
const trajectories = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind?: string; trajectory_id?: string })
    .filter((l) => l.trajectory_id)
    .map((l) => l.trajectory_id!)
    .sort();

beforeAll(async () => {
  // the fixture's lines, in a run and with trajectories of their own (the shared database may hold them already)
  const lines = SEARCH_LINES.filter((l) => l.run_id === TEXTS || l.kind === "case").map((l) =>
    l.kind === "case" ? l : { ...l, run_id: run, trajectory_id: `${l.trajectory_id}-${suffix}` },
  );
  const s = await ingestText(bulkPool(), ndjson(lines));
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 300));
  const email = `admin-${randomBytes(5).toString("hex")}@test.local`;
  const u = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  read = (await createApiToken({ name: "search-read", scopes: ["read"] }, { userId: u.id, email })).token;
});

describe("GET /api/v1/runs/{run}/ledger.ndjson?q=", () => {
  it("exports the entries whose rollout matches the search", async () => {
    const res = await get(`q=${encodeURIComponent("退款 -tool:finance")}&cases=0`);
    expect(res.status).toBe(200);
    expect(trajectories(await res.text())).toEqual([`s-zh-2-${suffix}`]);
    const all = await get(`q=${encodeURIComponent('"has been processed"')}`);
    expect(trajectories(await all.text())).toEqual([`s-en-1-${suffix}`]);
  });

  it("answers 400 naming where a search is wrong", async () => {
    const res = await get(`q=${encodeURIComponent('refund "has been')}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "bad_request", message: "q: this quote is never closed (at character 8)" },
    });
    const long = await get(`q=${"x".repeat(10_000)}`);
    expect(long.status).toBe(400);
    expect((await long.json()).error.message).toBe("q: a search has at most 500 characters");
  });
});

describe("verity export --search", () => {
  it("writes the matching entries, and refuses a bad search with exit 2", async () => {
    const stdout = new PassThrough();
    let text = "";
    stdout.on("data", (c) => (text += c));
    const ok = captureIo(stdout);
    expect(await exportCommand(["--run", run, "--search", "reply:退款", "--no-cases"], ok.io)).toBe(0);
    expect(trajectories(text)).toEqual([`s-zh-1-${suffix}`]);
    const bad = captureIo();
    expect(await exportCommand(["--run", run, "--search", "a"], bad.io)).toBe(2);
    expect(bad.err.join("")).toMatch(/^verity export: --search: "a" is too short to search for: .*\(at character 1\)/);
  });
});
