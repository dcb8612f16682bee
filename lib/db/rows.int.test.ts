import { afterAll, describe, expect, it } from "vitest";
import { createClient, poolOf } from "@/lib/db/client.ts";
import { rows } from "@/lib/db/rows.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";

const url = process.env.DATABASE_URL!;
const client = createClient(url);
afterAll(() => client.$disconnect());

// One row of each type the large reads take, with its nulls, and parameters of the kinds they pass.
const sample = (ids: bigint[], from: string) => Prisma.sql`
  select x.id, x.id::int as small, x.id * 0.25::float8 as ratio, ${from}::timestamptz + make_interval(days => x.id::int) as at,
         jsonb_build_object('k', x.id, 'list', jsonb_build_array(1, 'two', null)) as doc, array['a', x.id::text] as tags,
         x.id % 2 = 0 as even, case when x.id = 2 then null else 'text ' || x.id end as maybe,
         'ledger'::text as enum_text, null::jsonb as nothing, 9007199254740993::int8 as big
    from unnest(${ids}::bigint[]) as x(id)
   order by x.id`;

describe("rows(): a large read's rows from the pool behind a client", () => {
  it("are what $queryRaw gives, through the pool and through a transaction alike", async () => {
    expect(poolOf(client)).not.toBeNull();
    const q = sample([1n, 2n, 3n], "2026-11-01T00:00:00Z");
    const direct = await rows<Record<string, unknown>>(client, q);
    const viaPrisma = await client.$queryRaw<Record<string, unknown>[]>(q);
    const inTx = await client.$transaction((tx) => rows<Record<string, unknown>>(tx, q));
    expect(direct).toStrictEqual(viaPrisma);
    expect(inTx).toStrictEqual(viaPrisma);
    expect(direct[1]).toStrictEqual({
      id: 2n,
      small: 2,
      ratio: 0.5,
      at: new Date("2026-11-03T00:00:00Z"),
      doc: { k: 2, list: [1, "two", null] },
      tags: ["a", "2"],
      even: true,
      maybe: null,
      enum_text: "ledger",
      nothing: null,
      big: 9007199254740993n, // past 2^53: a bigint, not a rounded number
    });
  });

  it("refuses a column whose type pg and Prisma read differently, naming it", async () => {
    await expect(rows(client, Prisma.sql`select 1.5::numeric as n`)).rejects.toThrow(/numeric .*cast it in the query/);
    await expect(rows(client, Prisma.sql`select now()::timestamp as t`)).rejects.toThrow(/timestamp without time zone/);
    await expect(rows(client, Prisma.sql`select array[1::int8] as ids`)).rejects.toThrow(/bigint\[\]/);
    // the pool is still usable after a refusal
    expect(await rows(client, Prisma.sql`select 1::int as one`)).toStrictEqual([{ one: 1 }]);
  });

  it("ends with its client: $disconnect ends the pool behind it, whoever read through it", async () => {
    for (const read of [
      (c: ReturnType<typeof createClient>) => rows(c, Prisma.sql`select 1::int as one`), // the pool alone
      (c: ReturnType<typeof createClient>) => c.$queryRaw`select 1`, // Prisma, which connects its adapter
      async (c: ReturnType<typeof createClient>) => {
        await c.$queryRaw`select 1`;
        await rows(c, Prisma.sql`select 1::int as one`);
      },
    ]) {
      const other = createClient(url);
      const pool = poolOf(other)!;
      await read(other);
      expect(pool.ended).toBe(false);
      await other.$disconnect();
      expect(pool.ended).toBe(true);
    }
  });
});
