import { withApiAuth } from "@/lib/auth/api.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { addVersionResponse, listFunctionsResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/rewards` (scope read): the reward functions with their latest versions. */
export const GET = withApiAuth<unknown>("read", () => listFunctionsResponse(bulkPool()));

/** `POST /api/v1/rewards` (scope ingest): `{name, document, reason}` stored as the next version of the name. */
export const POST = withApiAuth<unknown>("ingest", (req, _ctx, p) => addVersionResponse(bulkPool(), req, p));
