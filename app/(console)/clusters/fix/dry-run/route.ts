// POST /clusters/fix/dry-run (JSON body: lib/clusters/schema.ts bulkFixInput): the bulk fix's dry run over every
// affected rollout, streamed as NDJSON (lib/clusters/bulk-fix-stream.ts) for leads and admins (policy cases.revise).
// It writes nothing; Apply is the page's server action.
import { apiError } from "@/lib/auth/api.ts";
import { routeUser } from "@/lib/auth/route-user.ts";
import { dryRunStream } from "@/lib/clusters/bulk-fix-stream.ts";
import { resolveBulkFixTarget } from "@/lib/clusters/bulk-fix-target.ts";
import { bulkFixInput, issues, specChangeOf } from "@/lib/clusters/schema.ts";
import { describeSpecChange } from "@/lib/clusters/spec-change.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";

export const dynamic = "force-dynamic";

const MAX_BODY = 4 * 1024 * 1024;

export async function POST(req: Request): Promise<Response> {
  const auth = await routeUser("cases.revise");
  if (!auth.ok) return auth.response;
  const text = await req.text();
  if (text.length > MAX_BODY) return apiError(413, "too_large", "The request is larger than 4 MB.");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return apiError(400, "bad_request", "The body is not JSON.");
  }
  const parsed = bulkFixInput.safeParse(body);
  if (!parsed.success) return apiError(400, "bad_request", issues(parsed.error).join("; "));
  const r = await resolveBulkFixTarget(parsed.data, db());
  if (!r.ok)
    return apiError(r.error.field === "run" ? 404 : 400, "bad_request", `${r.error.field}: ${r.error.message}`);
  const change = specChangeOf(parsed.data);
  return new Response(dryRunStream(bulkPool(), r.target, change, describeSpecChange(change)), {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "cache-control": "no-store",
      // no proxy buffering: the progress lines are the point
      "x-accel-buffering": "no",
    },
  });
}
