import { z } from "zod";
import { apiRoute, textParam } from "@/lib/api/route.ts";
import { startRunResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

/** `POST /api/v1/rewards/{name}/runs` (scope ingest): `{run, scope?, fresh?, version?}`; 202 with the reward run's id. */
export const POST = apiRoute(
  { auth: { token: "ingest" }, params: z.object({ name: textParam }) },
  ({ req, caller, params, db }) => startRunResponse(db.bulk(), db.client(), params.name, req, caller),
);
