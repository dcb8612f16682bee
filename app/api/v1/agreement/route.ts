import { agreementResponse } from "@/lib/agreement/respond.ts";
import { withApiAuth } from "@/lib/auth/api.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/agreement?run=…&batch=…` (scope read): the agreement report, the same JSON as `verity agreement`. */
export const GET = withApiAuth<unknown>("read", (req) => agreementResponse(req.url));
