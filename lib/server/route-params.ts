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
