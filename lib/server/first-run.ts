import { seedDemoAudit } from "@/lib/audit/demo.ts";
import { createDemoUsersIfEmpty } from "@/lib/auth/demo-users.ts";
import { createClient } from "@/lib/db/client.ts";
import { seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import { demoEnabled } from "@/lib/env.ts";

/**
 * What `npm start` does to an empty database before serving: demo data and demo users unless this is a production
 * deployment without VERITY_DEMO.
 */
export async function prepareFirstRun(url: string, say: (line: string) => void): Promise<void> {
  if (!demoEnabled()) return;
  const loaded = await seedDemoIfEmpty(url);
  if (loaded) say(`loaded demo data: ${loaded}`);
  const client = createClient(url);
  try {
    for (const line of await createDemoUsersIfEmpty(client)) say(line);
  } finally {
    await client.$disconnect();
  }
  // The shadow-audit demo needs the demo ledger and the demo annotators, so it comes last, and only on the start
  // that loaded the demo ledger: made-up reviews never go into a database that holds real runs.
  if (!loaded) return;
  const audit = await seedDemoAudit(url);
  if (audit) say(`loaded demo audit: ${audit}`);
}
