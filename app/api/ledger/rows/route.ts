import { apiRoute } from "@/lib/api/route.ts";
import { BrowseCursorError, browseLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseQuery } from "@/lib/ledger/browse-schema.ts";
import { apiError } from "@/lib/result.ts";
import { SearchInputError, SearchTimeoutError } from "@/lib/search/data.ts";

export const dynamic = "force-dynamic";

/** The trajectory browser's next page (JSON), for infinite scrolling; with a search (`q`), each row's snippets. */
export const GET = apiRoute(
  { auth: { session: "ledger.read" }, query: parseBrowseQuery, invalid: "bad_filter" },
  async ({ query }) => {
    try {
      return Response.json(await browseLedger(query, 200));
    } catch (err) {
      if (err instanceof BrowseCursorError) return apiError(400, "bad_filter", err.message);
      if (err instanceof SearchTimeoutError) return apiError(422, "search_timeout", err.message);
      if (err instanceof SearchInputError) return apiError(400, "bad_filter", err.message);
      throw err;
    }
  },
);
