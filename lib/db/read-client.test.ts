import { describe, expect, it } from "vitest";
import { isReplicaUnavailable, REPLICA_BACKOFF_MAX_MS, ReplicaAvailability } from "@/lib/db/read-client.ts";

function clock() {
  const c = { t: 1_000_000, now: () => c.t };
  return c;
}

describe("ReplicaAvailability", () => {
  it("skips the replica for 2 s after a failure, doubling per further failure up to 60 s, logging only the first", () => {
    const c = clock();
    const logs: string[] = [];
    const a = new ReplicaAvailability("replica:5432", (l) => logs.push(l), c.now);
    expect(a.shouldTry()).toBe(true);
    a.failed(new Error("connect ECONNREFUSED"));
    expect(logs).toEqual([
      "verity: the read replica replica:5432 is unreachable (connect ECONNREFUSED); reading from the primary until it answers again",
    ]);
    expect(a.shouldTry()).toBe(false);
    c.t += 1999;
    expect(a.shouldTry()).toBe(false);
    c.t += 1;
    expect(a.shouldTry()).toBe(true);
    a.failed(new Error("again"));
    c.t += 3999;
    expect(a.shouldTry()).toBe(false);
    c.t += 1;
    expect(a.shouldTry()).toBe(true);
    for (let i = 0; i < 10; i++) a.failed(new Error("still down"));
    c.t += REPLICA_BACKOFF_MAX_MS - 1;
    expect(a.shouldTry()).toBe(false);
    c.t += 1;
    expect(a.shouldTry()).toBe(true);
    expect(logs).toHaveLength(1);
  });

  it("logs once when the replica answers again, and a later failure starts from 2 s", () => {
    const c = clock();
    const logs: string[] = [];
    const a = new ReplicaAvailability("r", (l) => logs.push(l), c.now);
    a.succeeded();
    expect(logs).toEqual([]);
    a.failed(new Error("x"));
    a.failed(new Error("x"));
    a.succeeded();
    a.succeeded();
    expect(logs).toEqual([
      expect.stringContaining("unreachable"),
      "verity: the read replica r answers again; reading from it",
    ]);
    expect(a.shouldTry()).toBe(true);
    a.failed(new Error("y"));
    c.t += 2000;
    expect(a.shouldTry()).toBe(true);
    expect(logs).toHaveLength(3);
  });
});

describe("isReplicaUnavailable", () => {
  it("is true for a refused, timed-out, shut-down or starting server, false for an error in the statement", () => {
    expect(isReplicaUnavailable(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isReplicaUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isReplicaUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(
      isReplicaUnavailable(Object.assign(new Error("the database system is starting up"), { code: "57P03" })),
    ).toBe(true);
    expect(isReplicaUnavailable(Object.assign(new Error("relation does not exist"), { code: "42P01" }))).toBe(false);
    expect(isReplicaUnavailable(Object.assign(new Error("canceling statement"), { code: "40001" }))).toBe(false);
  });
});
