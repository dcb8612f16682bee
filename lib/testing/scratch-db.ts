import crypto from "node:crypto";
import { rawClient } from "@/lib/db/raw-client.ts";
import { createCitusDatabase, databaseUrl, dropCitusDatabase } from "@/lib/testing/citus-cluster.ts";

/**
 * The nodes' maintenance databases (coordinator first) when the integration tests run on a Citus cluster
 * (`npm test -- citus`, set by bin/test.ts); empty on the single-node server.
 */
const citusNodes = (process.env.VERITY_TEST_CITUS_NODES ?? "").split(",").filter(Boolean);

/**
 * Whether this integration test runs against a distributed database on a Citus cluster (docs/scale.md, "Verity on
 * Citus"). A test that cannot apply there is skipped with `it.skipIf(ON_CITUS)` and the reason beside it.
 */
export const ON_CITUS = citusNodes.length > 0;

/**
 * A throw-away database on the test server (VERITY_TEST_ADMIN_URL, set by bin/test.ts), for tests that need a
 * database of their own: migration tests start from nothing, ingest tests stop the server under themselves. On a
 * Citus cluster it is made on every node with the citus extension and the workers added (not yet distributed).
 */
export async function createScratchDatabase(prefix = "scratch"): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.VERITY_TEST_ADMIN_URL;
  if (!adminUrl) throw new Error("VERITY_TEST_ADMIN_URL is not set: run integration tests through `npm test`.");
  const name = `verity_${prefix}_${crypto.randomBytes(4).toString("hex")}`;
  if (ON_CITUS)
    return { url: await createCitusDatabase(citusNodes, name), drop: () => dropCitusDatabase(citusNodes, name) };
  const admin = rawClient({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(adminUrl, name),
    drop: async () => {
      const c = rawClient({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
