import { routeUser } from "@/lib/auth/route-user.ts";
import { iterateLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { csvHeader, csvLine, ndjsonLine } from "@/lib/ledger/export-rows.ts";
import { streamedBody, utf8 } from "@/lib/ledger/stream-body.ts";

export const dynamic = "force-dynamic";

/** The trajectory browser's filtered set as a streamed CSV or NDJSON download (`format=csv|ndjson`). */
export async function GET(req: Request) {
  const auth = await routeUser("export");
  if (!auth.ok) return auth.response;
  const search = new URL(req.url).searchParams;
  const format = search.get("format") ?? "csv";
  search.delete("format");
  if (format !== "csv" && format !== "ndjson")
    return Response.json(
      { error: { code: "bad_filter", message: 'format: must be "csv" or "ndjson"' } },
      { status: 400 },
    );
  const parsed = parseBrowseParams(search);
  if (!parsed.ok)
    return Response.json({ error: { code: "bad_filter", message: parsed.errors.join("; ") } }, { status: 400 });
  const body = await streamedBody(exportText(parsed.params, format), utf8);
  const name = `verity-trajectories.${format}`;
  return new Response(body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
    },
  });
}

/** The download's text, batch by batch; a CSV's header goes with its first batch (or alone when none match). */
async function* exportText(params: BrowseParams, format: "csv" | "ndjson"): AsyncGenerator<string> {
  let header = format === "csv" ? csvHeader() : "";
  for await (const rows of iterateLedger(params)) {
    yield header + rows.map(format === "csv" ? csvLine : ndjsonLine).join("");
    header = "";
  }
  if (header) yield header;
}
