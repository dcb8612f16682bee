// The one way the console says that something expected went wrong: a `Result` value inside the code, and one JSON
// body at the HTTP boundary. Writers, parsers and actions return `Result`; a route answers `apiError` (every route
// goes through lib/api/route.ts, which maps a failed parse to it). Clients (the Python client, `verity`, the e2e
// specs) read `error.code` and `error.message`; a message about one field starts with its name ("from: …").
import type { z } from "zod";

/** An expected failure: a sentence for a person and, when it is about one input, the field's name. */
export type Failure = { error: string; field?: string };

/** `{ok: true, ...T}` or `{ok: false, ...F}`: an expected outcome as a value, never an exception. */
export type Result<T = object, F = Failure> = ({ ok: true } & T) | ({ ok: false } & F);

/** The body of every error answer of the console's routes: `{"error": {"code": "bad_request", "message": "…"}}`. */
export type ApiErrorBody = { error: { code: string; message: string } };

/** An error answer in the one shape, never cached. */
export function apiError(status: number, code: string, message: string, headers?: HeadersInit): Response {
  const body: ApiErrorBody = { error: { code, message } };
  return Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });
}

/**
 * A zod error as "field: message" sentences (dotted paths; an unknown key named as `unknown parameter "k"`), for the
 * routes' 400 answers, the CLI and the forms that show one line.
 */
export function fieldMessages(error: z.ZodError): string[] {
  return error.issues.map((i) =>
    i.code === "unrecognized_keys"
      ? `unknown parameter ${i.keys.map((k) => `"${k}"`).join(", ")}`
      : `${i.path.join(".")}: ${i.message}`,
  );
}

/**
 * URL search params parsed by a schema: empty values are absent, a parameter given more than once is refused, and
 * each error names its field (fieldMessages).
 */
export function parseSearchParams<T>(
  schema: z.ZodType<T>,
  input: Record<string, string | string[] | undefined>,
): { ok: true; value: T } | { ok: false; errors: string[] } {
  const clean: Record<string, string> = {};
  const errors: string[] = [];
  for (const [k, v] of Object.entries(input)) {
    if (Array.isArray(v)) errors.push(`${k}: given more than once`);
    else if (v !== undefined && v !== "") clean[k] = v;
  }
  if (errors.length) return { ok: false, errors };
  const r = schema.safeParse(clean);
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: fieldMessages(r.error) };
}
