import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "@/lib/cli/clusters.ts";
import { listClusterTickets } from "@/lib/clusters/detail-data.ts";
import { db } from "@/lib/db/client.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { handoffBlindSpotValues } from "@/lib/testing/clusters-data.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

// Three cases that allow a hand-off, two rollouts each that read, hand off and write nothing: the blind spot.
const tag = randomBytes(3).toString("hex");
const RUN = `fix-cli-${tag}`;
const TICKETS = [0, 1, 2].map((i) => `FX-${tag}-${i}`);
const KEY = "blind_spot:handoff_no_write";

const outcomes = async () =>
  (
    await bulkPool().query<{ ticket_id: string; outcome: number }>(
      "select ticket_id, outcome from ledger where run_id = $1 and is_current order by trajectory_id",
      [RUN],
    )
  ).rows;

beforeAll(async () => {
  const values = handoffBlindSpotValues(RUN, TICKETS);
  const s = await ingestValues(values, { pool: bulkPool() });
  expect(s).toMatchObject({ ok: true, rejected: 0 });
});

describe("verity clusters fix", () => {
  it("names what is wrong with the flags (exit 2) and with the target (exit 1), storing nothing", async () => {
    const cases: [string[], number, string][] = [
      [["--run", RUN, "--cluster", KEY, "--dry-run"], 2, "give one change: --handoff MODE or --require-write"],
      [["--run", RUN, "--cluster", KEY, "--handoff", "never", "--dry-run"], 2, "--handoff: must be one of"],
      [
        ["--run", RUN, "--cluster", "nope!", "--handoff", "not_allowed", "--dry-run"],
        2,
        "--cluster: is not a cluster key",
      ],
      [["--run", RUN, "--cluster", KEY, "--handoff", "not_allowed"], 2, "--reason: a revision needs a reason"],
      [
        ["--run", RUN, "--cluster", KEY, "--require-write", "bad tool", "--dry-run"],
        2,
        '"bad tool" is not a tool name',
      ],
      [
        ["--run", RUN, "--cluster", KEY, "--require-write", "finance.issue_refund:amount", "--dry-run"],
        2,
        "--require-write: field 1 (amount): give its value as amount=VALUE",
      ],
      [["--run", RUN, "--cluster", KEY, "--tickets", ",", "--handoff", "not_allowed", "--dry-run"], 2, "--tickets"],
      [["--run", `${RUN}-x`, "--cluster", KEY, "--handoff", "not_allowed", "--dry-run"], 1, "--run: there is no run"],
      [
        ["--run", RUN, "--cluster", KEY, "--require-write", "finance.nope", "--dry-run"],
        1,
        // (the registries of the shared database's other runs are listed too)
        "--require-write: finance.nope is in no tool registry (write tools: ",
      ],
      [
        ["--run", RUN, "--cluster", KEY, "--require-write", "order.get", "--dry-run"],
        1,
        "order.get is a read tool in the tool registries, not a write",
      ],
      [
        ["--run", RUN, "--cluster", KEY, "--tickets", `${TICKETS[0]},T-404`, "--handoff", "not_allowed", "--dry-run"],
        1,
        '--tickets: "T-404" is not a ticket of this cluster in this window',
      ],
    ];
    for (const [args, code, message] of cases) {
      const c = captureIo();
      expect(await run(["fix", ...args], c.io), args.join(" ")).toBe(code);
      expect(c.err.join("\n"), args.join(" ")).toContain(message);
    }
    expect(new Set((await outcomes()).map((r) => r.outcome))).toEqual(new Set([0.45]));
  });

  it("dry-runs with progress on stderr and the diff as JSON, then applies to two tickets: the third stays", async () => {
    const dry = captureIo();
    expect(
      await run(["fix", "--run", RUN, "--cluster", KEY, "--handoff", "not_allowed", "--dry-run", "--json"], dry.io),
    ).toBe(0);
    expect(dry.err.at(-1)).toBe("dry run: 6 rollouts (3 of 3 tickets)");
    const body = JSON.parse(dry.out.join(""));
    expect(body).toMatchObject({ dry_run: true, run: RUN, cluster: KEY, change: "handoff: not_allowed" });
    expect(body.totals).toMatchObject({ rollouts: 6, rewardChanged: 6 });
    expect(body.meanBefore - body.meanAfter).toBeCloseTo(0.45 * 0.45, 9);
    expect(new Set((await outcomes()).map((r) => r.outcome))).toEqual(new Set([0.45]));

    const c = captureIo();
    const args = [
      "--handoff",
      "not_allowed",
      "--tickets",
      TICKETS.slice(0, 2).join(","),
      "--reason",
      "must not hand off",
    ];
    expect(await run(["fix", "--run", RUN, "--cluster", KEY, ...args], c.io)).toBe(0);
    expect(c.out[0]).toBe(
      "applied (handoff: not_allowed): 2 case versions saved, 0 unchanged; re-scored 4 rollouts, 4 with another reward; defects fixed 0, verified 0",
    );
    expect((await outcomes()).map((r) => [r.ticket_id, r.outcome])).toEqual(
      TICKETS.flatMap((t, i) => [0, 1].map(() => [t, i < 2 ? 0 : 0.45])),
    );
    const left = await listClusterTickets({ runId: RUN, threshold: 0.5 }, { kind: "blind_spot" }, db());
    expect(left.map((x) => x.ticketId)).toEqual([TICKETS[2]]);
    const log = await bulkPool().query<{ n: number }>(
      "select count(*)::int as n from activity_log where action = 'case.revise' and target_id = any($1)",
      [TICKETS],
    );
    expect(log.rows[0].n).toBe(2);
  });
});
