import { routeUser } from "@/lib/auth/route-user.ts";
import { iterateLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";
import { csvHeader, csvLine, ndjsonLine } from "@/lib/ledger/export-rows.ts";

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
  const encoder = new TextEncoder();
  const batches = iterateLedger(parsed.params);
  let headerSent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (format === "csv" && !headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvHeader()));
        return;
      }
      const next = await batches.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value.map(format === "csv" ? csvLine : ndjsonLine).join("")));
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
  const name = `verity-trajectories.${format}`;
  return new Response(body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
      "cache-control": "no-store",
    },
  });
}
