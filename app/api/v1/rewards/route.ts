import { apiRoute } from "@/lib/api/route.ts";
import { addVersionResponse, listFunctionsResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/rewards` (scope read): the reward functions with their latest versions. */
export const GET = apiRoute({ auth: { token: "read" } }, ({ db }) => listFunctionsResponse(db.client()));

/** `POST /api/v1/rewards` (scope ingest): `{name, document, reason}` stored as the next version of the name. */
export const POST = apiRoute({ auth: { token: "ingest" } }, ({ req, caller, db }) =>
  addVersionResponse(db.client(), req, caller),
);
