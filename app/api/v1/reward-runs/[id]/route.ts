import { z } from "zod";
import { apiRoute, textParam } from "@/lib/api/route.ts";
import { runProgressResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/reward-runs/{id}` (scope read): the run's progress (done, total, rate, ETA, status). */
export const GET = apiRoute({ auth: { token: "read" }, params: z.object({ id: textParam }) }, ({ params, db }) =>
  runProgressResponse(db.bulk(), params.id),
);
