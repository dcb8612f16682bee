// A read that many requests wait for (a search's match set, a view's order read from it) runs in a transaction of its
// own under its own timeout: the request that starts it waits for it with its transaction ended, so neither the
// request's timeout nor its connection stops the read, and a failed read is each waiting request's error.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOver, type Db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import {
  SearchTimeoutError,
  SHARED_READ_WORK_MEM_MB,
  SharedReadPending,
  sharedRead,
  sharedTransaction,
  unlessTimedOut,
  withSearchTimeout,
} from "@/lib/search/data.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";

let t: TestDatabase;
/** A client whose pool holds one connection: a request that kept its own while waiting would leave none. */
let one: PrismaClient;

beforeAll(async () => {
  t = await freshDatabase("shared_read");
  one = clientOver(new pg.Pool({ connectionString: t.url, max: 1 }));
});
afterAll(async () => {
  await one?.$disconnect();
  await t?.drop();
});

/** The backend's pid and how long the shared read slept, each time it runs. */
function sleeper(seconds: number, ms?: number) {
  const runs: number[] = [];
  let read: Promise<number> | undefined;
  const start = () =>
    (read ??= sharedTransaction(
      one,
      async (tx) => {
        const [{ pid }] = await tx.$queryRaw<
          { pid: number }[]
        >`select pg_backend_pid() as pid, pg_sleep(${seconds})::text as slept`;
        runs.push(pid);
        return seconds;
      },
      ms,
    ));
  return { runs, start };
}

describe("a shared read", () => {
  it("runs past the timeout of the request that started it, which waits for it holding no connection", async () => {
    const s = sleeper(0.6);
    let bodies = 0;
    const got = await withSearchTimeout(
      one,
      async (tx) => {
        bodies++;
        const slept = await sharedRead(s.start());
        const [{ n }] = await tx.$queryRaw<{ n: number }[]>`select 1::int as n`;
        return slept + n;
      },
      200,
    );
    expect(got).toBe(1.6);
    // run once, though the request's statements may run 200 ms and its body ran twice (before and after the wait)
    expect(s.runs).toHaveLength(1);
    expect(bodies).toBe(2);
  });

  it("is shared: requests that ask while it runs wait for the one read", async () => {
    const s = sleeper(0.3);
    const ask = () => withSearchTimeout(one, async () => sharedRead(s.start()), 100);
    expect(await Promise.all([ask(), ask(), ask()])).toEqual([0.3, 0.3, 0.3]);
    expect(s.runs).toHaveLength(1);
  });

  it("stopped by its own timeout is the error of every request that waits for it", async () => {
    const s = sleeper(3, 300);
    const ask = () => withSearchTimeout(one, async () => sharedRead(s.start()), 5_000);
    const answers = await Promise.allSettled([ask(), ask()]);
    for (const a of answers) {
      expect(a.status).toBe("rejected");
      const err = (a as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(SearchTimeoutError);
      expect(err.message).toMatch(/took longer than 0\.3 s/);
    }
    expect(s.runs).toHaveLength(0);
  });

  it("gives a read that the search's timeout stopped as null where asked (unlessTimedOut); any other error stays", async () => {
    const slow = withSearchTimeout(one, (tx) => tx.$queryRaw`select pg_sleep(2)`, 300);
    expect(await unlessTimedOut(slow)).toBeNull();
    expect(await unlessTimedOut(withSearchTimeout(one, async () => 7, 300))).toBe(7);
    const broken = withSearchTimeout(one, (tx) => tx.$queryRaw`select 1 / 0`, 300);
    await expect(unlessTimedOut(broken)).rejects.toThrow(/division by zero/);
  });

  it("has memory of its own for its sorts and bitmaps, which a request's transaction does not", async () => {
    const workMem = (tx: Db) => tx.$queryRaw<{ work_mem: string }[]>`show work_mem`.then(([r]) => r.work_mem);
    const server = () => one.$queryRaw<{ work_mem: string }[]>`show work_mem`.then(([r]) => r.work_mem);
    const own = await server();
    expect(own).not.toBe(`${SHARED_READ_WORK_MEM_MB}MB`);
    expect(await sharedTransaction(one, workMem)).toBe(`${SHARED_READ_WORK_MEM_MB}MB`);
    expect(await withSearchTimeout(one, workMem)).toBe(own);
    // set for the transaction only: the connection (the pool's one) has the server's own again
    expect(await server()).toBe(own);
  });

  it("that has ended is answered at once, in the request's transaction; one that runs is thrown as pending", async () => {
    expect(await sharedRead(Promise.resolve(7))).toBe(7);
    await expect(sharedRead(Promise.reject(new Error("no")))).rejects.toThrow("no");
    const running = new Promise((res) => setTimeout(res, 50));
    await expect(sharedRead(running)).rejects.toBeInstanceOf(SharedReadPending);
  });

  it("tells a request that still finds its reads running after its waits that its search took too long", async () => {
    // a body whose shared read is always found running (as when the set it needs is dropped and gathered again)
    let runs = 0;
    const body = async () => {
      runs++;
      throw new SharedReadPending(Promise.resolve());
    };
    const err = await withSearchTimeout(one, body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchTimeoutError);
    expect((err as Error).message).toMatch(/^the search took longer than 5 s and was stopped/);
    // the first run and four more after a wait each
    expect(runs).toBe(5);
  });
});
