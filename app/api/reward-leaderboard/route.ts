import { apiRoute } from "@/lib/api/route.ts";
import { leaderboardResponse, parseLeaderboardApiQuery } from "@/lib/leaderboard/respond.ts";

export const dynamic = "force-dynamic";

/** The reward leaderboard page's JSON and CSV download, for signed-in readers of the ledger (lib/leaderboard/respond.ts). */
export const GET = apiRoute({ auth: { session: "ledger.read" }, query: parseLeaderboardApiQuery }, ({ query }) =>
  leaderboardResponse(query),
);
