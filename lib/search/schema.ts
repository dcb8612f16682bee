import { z } from "zod";
import { MAX_SEARCH_LENGTH, parseSearch, type SearchQuery } from "@/lib/search/parse.ts";

/** A search given as a query parameter or a flag: its text parsed (parseSearch), or refused with the parser's message. */
export const searchQuerySchema = z
  .string()
  .max(MAX_SEARCH_LENGTH, `a search has at most ${MAX_SEARCH_LENGTH} characters`)
  .transform((text, ctx): SearchQuery => {
    const r = parseSearch(text);
    if (r.ok) return r.query;
    ctx.addIssue({ code: "custom", message: r.error });
    return z.NEVER;
  });
