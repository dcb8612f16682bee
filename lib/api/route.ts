// The one wrapper of the console's route handlers (app/**/route.ts): who may call, then the path parameters, the query
// and the JSON body parsed, then the handler with typed input. Every refusal is an `apiError` body
// (lib/result.ts): 401/403 from the auth helpers (lib/auth), 400 naming the field for bad input, 413 for a body over
// its limit. The handler answers what it likes, a streamed body included. It is where a route gets a database
// handle (`db`): route files import none (eslint.config.mjs).
import "server-only";
import type pg from "pg";
import { z } from "zod";
import type { Db } from "@/lib/db/client.ts";
import { authenticateApi, type ApiPrincipal } from "@/lib/auth/api.ts";
import type { SessionUser } from "@/lib/auth/data.ts";
import type { Action, TokenScope } from "@/lib/auth/policy.ts";
import { routeUser } from "@/lib/auth/route-user.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { readPool } from "@/lib/db/read-client.ts";
import { apiError, fieldMessages, type Failure, type Result } from "@/lib/result.ts";

/**
 * Who may call: a bearer API token with a scope (null: any valid token; `client` is the database the token is looked
 * up in, for tests), a signed-in user whom the policy (lib/auth/policy.ts) allows the action, or anyone.
 */
export type RouteAuth = { token: TokenScope | null; client?: Db } | { session: Action } | { public: true };

/** The caller the handler gets for its kind of auth. */
export type CallerOf<A extends RouteAuth> = A extends { token: unknown }
  ? ApiPrincipal
  : A extends { session: unknown }
    ? SessionUser
    : null;

/** A bad input's answer: 400 bad_request unless the parser says otherwise (an unknown chart is a 404). */
export type InputFailure = Failure & { status?: number; code?: string };

/** An input parser: a zod schema (its issues become "field: message"), or a function whose messages are its own. */
export type Parser<I, T> = z.ZodType<T> | ((input: I) => Result<{ value: T }, InputFailure>);

/** The path parameters as Next hands them to a route handler: already percent-decoded (use them as they are). */
export type PathParams = Record<string, string | string[] | undefined>;

export type RouteSpec<A extends RouteAuth, P, Q, B> = {
  auth: A;
  params?: Parser<PathParams, P>;
  query?: Parser<URLSearchParams, Q>;
  /** A JSON body, read whole up to maxBytes characters (a 413 above). */
  body?: { schema: z.ZodType<B>; maxBytes: number };
  /** The code of a 400 for bad input (default "bad_request"; the trajectory browser's filters say "bad_filter"). */
  invalid?: string;
};

/** The database handles a handler may hand to the lib/ functions it calls, opened on first use. */
export const routeDb = {
  /** The Prisma client of the primary. */
  client: () => db(),
  /** The pg pool for bulk writes (ingest) and streamed reads. */
  bulk: (): pg.Pool => bulkPool(),
  /** The read replica's pool when DATABASE_REPLICA_URL is set, else the bulk pool: long read-only exports. */
  read: (): pg.Pool => readPool() ?? bulkPool(),
};

export type RouteInput<A extends RouteAuth, P, Q, B> = {
  req: Request;
  caller: CallerOf<A>;
  params: P;
  query: Q;
  body: B;
  db: typeof routeDb;
};

export type RouteContext = { params?: Promise<PathParams> };

/** The `[run]` segment (Next hands it decoded: a run id with a "%" is used as it is, never decoded again). */
export const runParams = z.object({ run: z.string() });

/** A path segment naming something stored as text: any text but a NUL character, which no text column can hold. */
export const textParam = z.string().refine((s) => !s.includes("\0"), "must not contain a NUL character (%00)");

/**
 * `export const GET = apiRoute({ auth: { token: "read" }, params: runParams, query: schema }, ({ params, query }) => …)`.
 * The handler runs only for an allowed caller with valid input.
 */
export function apiRoute<A extends RouteAuth, P = PathParams, Q = URLSearchParams, B = undefined>(
  spec: RouteSpec<A, P, Q, B>,
  handler: (input: RouteInput<A, P, Q, B>) => Response | Promise<Response>,
): (req: Request, ctx?: RouteContext) => Promise<Response> {
  return async (req, ctx) => {
    const caller = await authorize(req, spec.auth);
    if (!caller.ok) return caller.response;
    const invalid = spec.invalid ?? "bad_request";
    const params = parseWith(spec.params, (await ctx?.params) ?? {}, (p) => p);
    if (!params.ok) return refuse(params, invalid);
    const search = new URL(req.url).searchParams;
    const query = parseWith(spec.query, search, (s) => Object.fromEntries(s));
    if (!query.ok) return refuse(query, invalid);
    const body = spec.body ? await readJsonBody(req, spec.body) : { ok: true as const, value: undefined as B };
    if (!body.ok) return refuse(body, invalid);
    return handler({
      req,
      caller: caller.value as CallerOf<A>,
      params: params.value as P,
      query: query.value as Q,
      body: body.value as B,
      db: routeDb,
    });
  };
}

async function authorize(
  req: Request,
  auth: RouteAuth,
): Promise<Result<{ value: ApiPrincipal | SessionUser | null }, { response: Response }>> {
  if ("public" in auth) return { ok: true, value: null };
  if ("session" in auth) {
    const r = await routeUser(auth.session);
    return r.ok ? { ok: true, value: r.user } : r;
  }
  const r = await authenticateApi(req, auth.token, new Date(), auth.client);
  return r.ok ? { ok: true, value: r.principal } : r;
}

/** Runs a parser; without one the input passes as it is. A schema reads `toObject(input)`. */
function parseWith<I, T>(
  parser: Parser<I, T> | undefined,
  input: I,
  toObject: (input: I) => unknown,
): Result<{ value: unknown }, InputFailure> {
  if (!parser) return { ok: true, value: input };
  if (typeof parser === "function") return parser(input);
  const parsed = parser.safeParse(toObject(input));
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: fieldMessages(parsed.error).join("; "), field: parsed.error.issues[0]?.path.join(".") };
}

async function readJsonBody<B>(
  req: Request,
  { schema, maxBytes }: { schema: z.ZodType<B>; maxBytes: number },
): Promise<Result<{ value: B }, InputFailure>> {
  const text = await req.text();
  if (text.length > maxBytes)
    return {
      ok: false,
      status: 413,
      code: "too_large",
      error: `The request is larger than ${Math.round(maxBytes / 1024 / 1024)} MB.`,
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: "The body is not JSON." };
  }
  return parseWith(schema, json, (j) => j) as Result<{ value: B }, InputFailure>;
}

function refuse(f: InputFailure, invalid: string): Response {
  return apiError(f.status ?? 400, f.code ?? invalid, f.error);
}
