import { routeUser } from "@/lib/auth/route-user.ts";
import { BrowseCursorError, browseLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";

export const dynamic = "force-dynamic";

/** The trajectory browser's next page (JSON), for infinite scrolling. */
export async function GET(req: Request) {
  const auth = await routeUser("ledger.read");
  if (!auth.ok) return auth.response;
  const parsed = parseBrowseParams(new URL(req.url).searchParams);
  if (!parsed.ok)
    return Response.json({ error: { code: "bad_filter", message: parsed.errors.join("; ") } }, { status: 400 });
  try {
    return Response.json(await browseLedger(parsed.params, 200));
  } catch (err) {
    if (err instanceof BrowseCursorError)
      return Response.json({ error: { code: "bad_filter", message: err.message } }, { status: 400 });
    throw err;
  }
}
