import crypto from "node:crypto";
import { rawClient } from "@/lib/db/raw-client.ts";

/**
 * A throw-away database on the test server (VERITY_TEST_ADMIN_URL, set by bin/test.ts), for tests that need a
 * database of their own: migration tests start from nothing, ingest tests stop the server under themselves.
 */
export async function createScratchDatabase(prefix = "scratch"): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.VERITY_TEST_ADMIN_URL;
  if (!adminUrl) throw new Error("VERITY_TEST_ADMIN_URL is not set: run integration tests through `npm test`.");
  const name = `verity_${prefix}_${crypto.randomBytes(4).toString("hex")}`;
  const admin = rawClient({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
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
