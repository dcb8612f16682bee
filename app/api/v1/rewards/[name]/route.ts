import { z } from "zod";
import { apiRoute, textParam } from "@/lib/api/route.ts";
import { functionResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/rewards/{name}` (scope read): every version with its document, and the latest runs. */
export const GET = apiRoute({ auth: { token: "read" }, params: z.object({ name: textParam }) }, ({ params, db }) =>
  functionResponse(db.bulk(), db.client(), params.name),
);
