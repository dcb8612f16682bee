import { afterEach, describe, expect, it, vi } from "vitest";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.resetModules();
});

async function freshEnv(vars: Record<string, string>) {
  process.env = { ...saved, ...vars };
  vi.resetModules();
  return (await import("@/lib/env.ts")).env;
}

describe("the replica's environment", () => {
  it("reads DATABASE_REPLICA_URL and VERITY_REPLICA_MAX_LAG, 30 s by default", async () => {
    const env = await freshEnv({ DATABASE_REPLICA_URL: "postgresql://r@standby:5432/verity" });
    expect(env()).toMatchObject({
      DATABASE_REPLICA_URL: "postgresql://r@standby:5432/verity",
      VERITY_REPLICA_MAX_LAG: 30,
    });
  });

  it("names a replica URL that is not postgres:// and a lag limit that is not a positive number", async () => {
    const env = await freshEnv({ DATABASE_REPLICA_URL: "mysql://standby/verity", VERITY_REPLICA_MAX_LAG: "-5" });
    expect(() => env()).toThrow(
      "Invalid environment: DATABASE_REPLICA_URL must be a postgres:// or postgresql:// URL; VERITY_REPLICA_MAX_LAG Too small: expected number to be >0.",
    );
  });
});
