import { z } from "zod";
import { apiRoute, textParam } from "@/lib/api/route.ts";
import { holdsUpResponse, startRerunResponse } from "@/lib/leaderboard/rerun-respond.ts";
import { rerunBodySchema } from "@/lib/rewards/schema.ts";

export const dynamic = "force-dynamic";

const params = z.object({ name: textParam });

/** `GET /api/v1/rewards/{name}/reruns` (scope read): on each run, the latest injection probe and retest reports. */
export const GET = apiRoute({ auth: { token: "read" }, params }, ({ params, db }) =>
  holdsUpResponse(db.bulk(), db.client(), params.name),
);

/**
 * `POST /api/v1/rewards/{name}/reruns` (scope ingest): `{kind: "probe"|"retest", run, sample?, salt?, fresh?,
 * version?}` over the run's audited rollouts; 202 with the reward run's id.
 */
export const POST = apiRoute(
  { auth: { token: "ingest" }, params, body: { schema: rerunBodySchema, maxBytes: 10_000 } },
  ({ caller, params, body, db }) => startRerunResponse(db.bulk(), db.client(), params.name, body, caller),
);
