// POST /clusters/fix/dry-run (JSON body: lib/clusters/schema.ts bulkFixInput): the bulk fix's dry run over every
// affected rollout, streamed as NDJSON (lib/clusters/bulk-fix-stream.ts) for leads and admins (policy cases.revise).
// It writes nothing; Apply is the page's server action.
import { apiRoute } from "@/lib/api/route.ts";
import { dryRunStream } from "@/lib/clusters/bulk-fix-stream.ts";
import { resolveBulkFixTarget } from "@/lib/clusters/bulk-fix-target.ts";
import { bulkFixInput, specChangeOf } from "@/lib/clusters/schema.ts";
import { describeSpecChange } from "@/lib/clusters/spec-change.ts";
import { apiError } from "@/lib/result.ts";

export const dynamic = "force-dynamic";

export const POST = apiRoute(
  { auth: { session: "cases.revise" }, body: { schema: bulkFixInput, maxBytes: 4 * 1024 * 1024 } },
  async ({ body, db }) => {
    const r = await resolveBulkFixTarget(body, db.client());
    if (!r.ok)
      return apiError(r.error.field === "run" ? 404 : 400, "bad_request", `${r.error.field}: ${r.error.message}`);
    const change = specChangeOf(body);
    return new Response(dryRunStream(db.bulk(), r.target, change, describeSpecChange(change)), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "cache-control": "no-store",
        // no proxy buffering: the progress lines are the point
        "x-accel-buffering": "no",
      },
    });
  },
);
