import { agreementResponse } from "@/lib/agreement/respond.ts";
import { apiRoute } from "@/lib/api/route.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/agreement?run=…&batch=…` (scope read): the agreement report, the same JSON as `verity agreement`. */
export const GET = apiRoute({ auth: { token: "read" } }, ({ req }) => agreementResponse(req.url));
