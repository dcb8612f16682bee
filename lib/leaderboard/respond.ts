// GET /api/v1/reward-leaderboard: the leaderboard's query (every parameter of the page's address, plus
// format=json|csv) parsed with its errors naming the parameter, and the answer as JSON or CSV.
import type { InputFailure } from "@/lib/api/route.ts";
import type { Db } from "@/lib/db/client.ts";
import { loadLeaderboard } from "@/lib/leaderboard/loaders.ts";
import { parseLeaderboardQuery, type LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { leaderboardCsv } from "@/lib/leaderboard/view.ts";
import { apiError, type Result } from "@/lib/result.ts";

export type LeaderboardApiQuery = { query: LeaderboardQuery; format: "json" | "csv" };

/** The API's query: the page's parameters and `format`; a repeated parameter is refused. */
export function parseLeaderboardApiQuery(
  search: URLSearchParams,
): Result<{ value: LeaderboardApiQuery }, InputFailure> {
  const input: Record<string, string | string[]> = {};
  for (const k of new Set(search.keys())) {
    const all = search.getAll(k);
    input[k] = all.length > 1 ? all : all[0];
  }
  const { format = "json", ...rest } = input;
  if (format !== "json" && format !== "csv")
    return { ok: false, error: "format: must be json or csv", field: "format" };
  const parsed = parseLeaderboardQuery(rest);
  if (!parsed.ok) return { ok: false, error: parsed.errors.join("; "), field: parsed.errors[0]?.split(":")[0] };
  return { ok: true, value: { query: parsed.query, format } };
}

export async function leaderboardResponse(q: LeaderboardApiQuery, client?: Db): Promise<Response> {
  const loaded = await loadLeaderboard(q.query, client);
  if (!loaded.ok) return apiError(loaded.status, loaded.status === 404 ? "not_found" : "bad_request", loaded.error);
  const headers = { "cache-control": "no-store" };
  if (q.format === "csv") {
    const name = `reward-leaderboard-${loaded.view.scope.run}${loaded.view.scope.batch ? `-batch-${loaded.view.scope.batch.id}` : ""}.csv`;
    return new Response(leaderboardCsv(loaded.view.rows), {
      headers: {
        ...headers,
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${name.replace(/[^\w.-]/g, "_")}"`,
      },
    });
  }
  return Response.json(loaded.view, { headers });
}
