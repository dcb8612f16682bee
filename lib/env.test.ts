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

describe("the embedded server's shared buffers", () => {
  it("are VERITY_PG_SHARED_BUFFERS when set, else a quarter of the machine's memory within 128MB–8GB", async () => {
    delete saved.VERITY_PG_SHARED_BUFFERS;
    expect((await freshEnv({}))().VERITY_PG_SHARED_BUFFERS).toBeUndefined();
    const { embeddedSettings: unset, defaultSharedBuffers } = await import("@/lib/db/embedded.ts");
    expect(unset()).toContain(`shared_buffers=${defaultSharedBuffers()}`);
    const GiB = 1024 ** 3;
    expect([24 * GiB, 2 * GiB, 0.25 * GiB, 64 * GiB].map((m) => defaultSharedBuffers(m))).toEqual([
      "6144MB",
      "512MB",
      "128MB",
      "8192MB",
    ]);
    expect((await freshEnv({ VERITY_PG_SHARED_BUFFERS: "8GB" }))().VERITY_PG_SHARED_BUFFERS).toBe("8GB");
    const { embeddedSettings } = await import("@/lib/db/embedded.ts");
    expect(embeddedSettings()).toContain("shared_buffers=8GB");
    expect(embeddedSettings("512MB")).toEqual(["shared_buffers=512MB", "max_wal_size=4GB", "checkpoint_timeout=15min"]);
  });

  it("name a size that is not one, or out of range", async () => {
    for (const [value, why] of [
      ["8 GB", "must be a size such as 1GB or 512MB"],
      ["1TB", "must be a size such as 1GB or 512MB"],
      ["64MB", "must be between 128MB and 64GB"],
      ["65GB", "must be between 128MB and 64GB"],
    ]) {
      const env = await freshEnv({ VERITY_PG_SHARED_BUFFERS: value });
      expect(() => env(), value).toThrow(`Invalid environment: VERITY_PG_SHARED_BUFFERS ${why}.`);
    }
  });
});

describe("the cap on inflated bytes", () => {
  it("is 1 GiB by default, and VERITY_MAX_INFLATED_BYTES in bytes, MB or GB", async () => {
    delete saved.VERITY_MAX_INFLATED_BYTES;
    expect((await freshEnv({}))().VERITY_MAX_INFLATED_BYTES).toBe(2 ** 30);
    expect((await freshEnv({ VERITY_MAX_INFLATED_BYTES: "4GB" }))().VERITY_MAX_INFLATED_BYTES).toBe(4 * 2 ** 30);
    expect((await freshEnv({ VERITY_MAX_INFLATED_BYTES: "64MB" }))().VERITY_MAX_INFLATED_BYTES).toBe(64 * 2 ** 20);
    expect((await freshEnv({ VERITY_MAX_INFLATED_BYTES: "5000" }))().VERITY_MAX_INFLATED_BYTES).toBe(5000);
    await expect(freshEnv({ VERITY_MAX_INFLATED_BYTES: "1 GB" }).then((env) => env())).rejects.toThrow(
      "Invalid environment: VERITY_MAX_INFLATED_BYTES must be a number of bytes or a size such as 512MB or 4GB.",
    );
  });
});
