// The reward function's page's "How it holds up" card: each run's latest probe and retest reports.
import { bulkPool } from "@/lib/db/pool.ts";
import { loadHoldsUp, type HoldsUp } from "@/lib/leaderboard/reruns.ts";

export function loadHoldsUpCard(functionName: string): Promise<HoldsUp[]> {
  return loadHoldsUp(bulkPool(), functionName);
}
