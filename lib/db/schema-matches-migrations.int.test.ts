import { rawClient } from "@/lib/db/raw-client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import { loadDmmf, shapeFromDatabase, shapeFromDmmf, SQL_ONLY_INDEXES, type Shape } from "@/lib/db/schema-shape.ts";

describe("the migrated database matches prisma/schema.prisma", () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let actual: Shape;
  const expected = shapeFromDmmf(loadDmmf());

  beforeAll(async () => {
    scratch = await createScratchDatabase("shape");
    await migrate(scratch.url);
    const client = rawClient({ connectionString: scratch.url });
    await client.connect();
    actual = await shapeFromDatabase(client);
    await client.end();
  });
  afterAll(async () => scratch?.drop());

  it("has every model as a table and nothing else", () => {
    expect(expected.tables.length).toBeGreaterThan(15);
    expect(actual.tables).toEqual(expected.tables);
  });
  it("has every column with its type, nullability and default", () => {
    expect(actual.columns).toEqual(expected.columns);
  });
  it("has every enum with its values in order", () => {
    expect(actual.enums).toEqual(expected.enums);
  });
  it("has every primary key, unique constraint and index, with columns in order", () => {
    expect(actual.indexes).toEqual(expected.indexes);
  });
  it("has exactly the expression indexes Prisma cannot describe, and no others", () => {
    expect(actual.expressionIndexes).toEqual([...SQL_ONLY_INDEXES].sort());
  });
  it("has every foreign key with its delete rule", () => {
    expect(actual.foreignKeys).toEqual(expected.foreignKeys);
  });
});
