import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "@/lib/cli/clusters.ts";
import { ingestKnownLedger } from "@/lib/testing/clusters-data.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

const runId = `clu-cli-${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  await ingestKnownLedger(bulkPool(), runId, `${runId}-`);
});

describe("verity clusters", () => {
  it("prints the ranked table with the blind spot and the co-fired sets", async () => {
    const c = captureIo();
    expect(await run(["--run", runId], c.io)).toBe(0);
    const text = c.out.join("\n");
    expect(text).toContain(`run ${runId}, steps 0–3000, reward below 0.5: 36 rollouts, 14 below (38.9%)`);
    const ranks = c.out.filter((l) => /^\d+\s/.test(l)).map((l) => l.split(/\s+/)[1]);
    expect(ranks).toEqual(["empty_promise", "unauthorized_write", "weakest:outcome"]);
    expect(text).toContain(
      "note: 1 of the low-scoring rollouts have no verifier detail (scored outside Verity: no guardrails, no sub-scores) and are not clustered.",
    );
    expect(text).toMatch(/blind spot \(blind_spot:handoff_no_write\)/);
    expect(text).toMatch(/6 rollouts \(16\.7%\), 1 tickets/);
    expect(text).toContain("unauthorized_write + missing_evidence");
  });

  it("prints the API's JSON with --json, honouring the window and threshold", async () => {
    const c = captureIo();
    expect(
      await run(
        ["--run", runId, "--from", "1000", "--to", "2000", "--threshold", "0.25", "--json", "--no-phrasings"],
        c.io,
      ),
    ).toBe(0);
    const body = JSON.parse(c.out.join(""));
    expect(body).toMatchObject({ kind: "cluster_report", run_id: runId, rollouts: 17, step_from: 1000, step_to: 2000 });
    expect(body.clusters.map((x: { key: string }) => x.key)).toEqual(["empty_promise"]);
  });

  it("writes a cluster's backlog with --export, and says what is wrong with bad flags", async () => {
    const file = path.join(os.tmpdir(), `clusters-${randomBytes(3).toString("hex")}.ndjson`);
    const c = captureIo();
    expect(await run(["--run", runId, "--export", "empty_promise", "--out", file], c.io)).toBe(0);
    const kinds = fs
      .readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).kind);
    fs.rmSync(file);
    expect(kinds[0]).toBe("cluster");
    expect(kinds.filter((k) => k === "example")).toHaveLength(6);
    const bad = captureIo();
    expect(await run(["--run", runId, "--threshold", "0", "--export", "nope"], bad.io)).toBe(2);
    expect(bad.err.join("\n")).toMatch(/--threshold: must be above 0; --export: is not a cluster key/);
    const unknown = captureIo();
    expect(await run(["--run", "no-such-run"], unknown.io)).toBe(1);
  });
});
