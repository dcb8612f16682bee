// A saved search's count per step in a run as CSV (?run=R): the table its chart on the monitors page draws. The
// signed-in user's own searches only: another user's id is a 404, as an unknown one is.
import { z } from "zod";
import { apiRoute } from "@/lib/api/route.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { csvFileName, tableToCsv } from "@/lib/monitors/csv.ts";
import { apiError } from "@/lib/result.ts";
import { loadSearchCount } from "@/lib/saved-searches/loaders.ts";

export const dynamic = "force-dynamic";

const params = z.object({ id: z.coerce.number().int().positive().max(INT4_MAX) });
const query = z.object({ run: z.string().min(1).max(200) });

export const GET = apiRoute(
  { auth: { session: "ledger.read" }, params, query },
  async ({ caller, params: { id }, query: { run } }) => {
    const count = await loadSearchCount(caller.id, id, run);
    if (!count) return apiError(404, "not_found", `You have no saved search ${id} that counts in run ${run}.`);
    if (!count.table) return apiError(503, "search_timeout", count.error ?? "The search could not be counted.");
    return new Response(tableToCsv(count.table), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${csvFileName(run, `search-${id}`)}"`,
        "cache-control": "no-store",
      },
    });
  },
);
