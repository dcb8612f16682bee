import { apiRoute } from "@/lib/api/route.ts";
import { leaderboardResponse, parseLeaderboardApiQuery } from "@/lib/leaderboard/respond.ts";

export const dynamic = "force-dynamic";

/**
 * `GET /api/v1/reward-leaderboard?run=…|batch=…` (scope read): the reward leaderboard of the audited items, as JSON
 * or (`format=csv`) one line per row; `a=…&b=…` adds the head to head of two rows (docs/leaderboard.md).
 */
export const GET = apiRoute({ auth: { token: "read" }, query: parseLeaderboardApiQuery }, ({ query }) =>
  leaderboardResponse(query),
);
