// URL params of /agreement/items: the figure's cell and the report's filters (lib/agreement/schema.ts) plus the
// list's own sort, disagreements-first, page size and page key. Every bad value is named with its field.
import { z } from "zod";
import { decodeKey, ITEM_SORTS, type ItemListing } from "@/lib/agreement/items-listing.ts";
import { parseAgreementCellQuery, type AgreementCellSelection, type AgreementFilter } from "@/lib/agreement/schema.ts";

const pageKey = z
  .string()
  .transform((s, ctx) => {
    const k = decodeKey(s);
    if (!k) ctx.addIssue({ code: "custom", message: "must be a page key from a Next or Previous link" });
    return k ?? z.NEVER;
  })
  .optional();

export const itemListingSchema = z
  .object({
    sort: z.enum(ITEM_SORTS, { message: `must be one of ${ITEM_SORTS.join(", ")}` }).default("item"),
    dir: z.enum(["asc", "desc"], { message: "must be asc or desc" }).default("asc"),
    disagreementsFirst: z
      .enum(["0", "1"], { message: "must be 1 or 0" })
      .default("0")
      .transform((v) => v === "1"),
    size: z.coerce
      .number({ message: "must be a number" })
      .int("must be a whole number")
      .min(5, "must be between 5 and 200")
      .max(200, "must be between 5 and 200")
      .default(50),
    after: pageKey,
    before: pageKey,
  })
  .refine((l) => !(l.after && l.before), { path: ["before"], message: "cannot be given with after" });

export const LISTING_KEYS = ["sort", "dir", "disagreementsFirst", "size", "after", "before"] as const;

export type ItemsQuery = { cell: AgreementCellSelection; filter: AgreementFilter; listing: ItemListing };

/** Splits the params into the list's own and the figure's (cell and filters), and parses both. */
export function parseAgreementItemsQuery(
  input: Record<string, string | undefined>,
): { ok: true; query: ItemsQuery } | { ok: false; errors: string[] } {
  const own: Record<string, string> = {};
  const rest: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(input)) {
    if ((LISTING_KEYS as readonly string[]).includes(k)) {
      if (v !== undefined && v !== "") own[k] = v;
    } else rest[k] = v;
  }
  const l = itemListingSchema.safeParse(own);
  const c = parseAgreementCellQuery(rest);
  const errors = [
    ...(l.success ? [] : l.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)),
    ...(c.ok ? [] : c.errors),
  ];
  if (!l.success || !c.ok) return { ok: false, errors };
  return { ok: true, query: { cell: c.cell, filter: c.filter, listing: l.data } };
}

/** The query string of a view of the list: filters, cell and listing (defaults left out). */
export function itemsQuery(q: {
  filter: Partial<AgreementFilter>;
  cell: Partial<AgreementCellSelection>;
  listing: Partial<ItemListingParams>;
}): string {
  const p = new URLSearchParams();
  const put = (k: string, v: unknown) => v !== undefined && v !== null && v !== "" && p.set(k, String(v));
  for (const [k, v] of Object.entries(q.filter)) if (!(k === "tolerance" && v === 0.1)) put(k, v);
  for (const [k, v] of Object.entries(q.cell)) if (!(k === "cell" && v === "all")) put(k, v);
  const l = q.listing;
  if (l.sort && l.sort !== "item") put("sort", l.sort);
  if (l.dir && l.dir !== "asc") put("dir", l.dir);
  if (l.disagreementsFirst) put("disagreementsFirst", "1");
  if (l.size && l.size !== 50) put("size", l.size);
  put("after", l.after);
  put("before", l.before);
  return p.toString();
}

/** A listing as the URL carries it: keys encoded. */
export type ItemListingParams = Omit<ItemListing, "after" | "before"> & { after?: string; before?: string };
