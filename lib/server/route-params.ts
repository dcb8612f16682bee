// Dynamic path segments as the console reads them. A "%" not followed by two hex digits, or percent-escapes that are
// not UTF-8 (`%E0%A4%A`), cannot be decoded: Next throws while matching such a path to a route and answers a bare
// 500, so proxy.ts answers 400 before routing (malformedSegment). Next hands a page its params still
// percent-encoded and a route handler its params decoded: pages decode once with decodeSegment, route handlers
// use the param as it is (decoding again would turn "a%2541" into "aA").

/** The first segment of a URL path (as sent, percent-encoded) that does not decode, or null when all do. */
export function malformedSegment(pathname: string): string | null {
  for (const segment of pathname.split("/"))
    if (segment.includes("%") && decodeSegment(segment) === null) return segment;
  return null;
}

/** A percent-encoded segment as text, or null when it does not decode. */
export function decodeSegment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** The part of an address that holds a NUL character: a path segment (as sent) or a search parameter's name. */
export type NulPart = { segment: string } | { parameter: string };

/**
 * The first path segment or search parameter of a URL that holds a NUL character (`%00`), or null. No text the
 * console stores or looks up may hold one (PostgreSQL's text cannot), and sent to the database it fails the whole
 * query, so proxy.ts answers 400 naming the part before any page or route reads it.
 */
export function nulPart(url: URL): NulPart | null {
  for (const segment of url.pathname.split("/")) if (decodeSegment(segment)?.includes("\0")) return { segment };
  for (const [name, value] of url.searchParams)
    if (name.includes("\0") || value.includes("\0")) return { parameter: name.replaceAll("\0", "\\0") };
  return null;
}

/** How a NUL part is named in a message: `the parameter "run"`, `the part "a%00b"`. */
export function describeNulPart(part: NulPart): string {
  return "segment" in part
    ? `the part ${JSON.stringify(part.segment)}`
    : `the parameter ${JSON.stringify(part.parameter)}`;
}
