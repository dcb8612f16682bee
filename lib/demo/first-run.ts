// The demo's one seeding entry, run by `npm start` (bin/start.ts) before it serves: each concern of the demo is one
// file it calls in turn (seed.ts the demo runs and their ledger, users.ts the demo accounts, audit.ts the shadow
// audit). Nothing in lib/ imports lib/demo but this start-up path; lib/demo may import any lib/ folder.
import { seedDemoAudit } from "@/lib/demo/audit.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { createClient } from "@/lib/db/client.ts";
import { seedDemoRewards } from "@/lib/demo/rewards.ts";
import { runsWithoutDemo, seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import { demoEnabled, env, type Env } from "@/lib/env.ts";

/**
 * What `npm start` does to an empty database before serving: demo data and demo users unless this is a production
 * deployment without VERITY_DEMO. VERITY_DEMO=force loads the demo runs beside other runs too. A database whose
 * runs kept the demo out is told so, with the way to load it anyway.
 */
export async function prepareFirstRun(url: string, say: (line: string) => void, e: Env = env()): Promise<void> {
  if (!demoEnabled(e)) return;
  const loaded = await seedDemoIfEmpty(url, {
    size: e.VERITY_DEMO_SIZE,
    force: e.VERITY_DEMO === "force",
    progress: say,
  });
  if (loaded) say(`loaded demo data: ${loaded}`);
  else await sayWhyNoDemo(url, say);
  const client = createClient(url);
  try {
    for (const line of await createDemoUsersIfEmpty(client)) say(line);
  } finally {
    await client.$disconnect();
  }
  // The shadow-audit demo needs the demo ledger and the demo annotators, so it comes last, and only on the start
  // that loaded the demo ledger: made-up reviews never go into a database that holds real runs unasked.
  if (!loaded) return;
  say("loading the demo shadow audit (reviews by the demo annotators)…");
  const audit = await seedDemoAudit(url);
  if (audit) say(`loaded demo audit: ${audit}`);
  await seedDemoRewards(url, say);
}

async function sayWhyNoDemo(url: string, say: (line: string) => void): Promise<void> {
  const other = await runsWithoutDemo(url);
  if (!other) return;
  const more = other.total - other.ids.length;
  const runs = other.ids.join(", ") + (more > 0 ? ` and ${more} more` : "");
  say(
    `demo data not loaded: the database already holds ${other.total === 1 ? "run" : `${other.total} runs`} ${runs} ` +
      "(the demo loads only into an empty database); start once with VERITY_DEMO=force to load it beside them",
  );
}
