import { seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import { demoEnabled } from "@/lib/env.ts";

/**
 * What `npm start` does to an empty database before serving: demo data (and later demo users) unless this is a
 * production deployment without VERITY_DEMO.
 */
export async function prepareFirstRun(url: string, say: (line: string) => void): Promise<void> {
  if (!demoEnabled()) return;
  const loaded = await seedDemoIfEmpty(url);
  if (loaded) say(`loaded demo data: ${loaded}`);
}
