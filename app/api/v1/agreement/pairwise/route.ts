import { apiRoute } from "@/lib/api/route.ts";
import { pairReportResponse } from "@/lib/pairwise/report-respond.ts";

export const dynamic = "force-dynamic";

/** `GET /api/v1/agreement/pairwise?batch=N` or `?run=R` (scope read): the pairwise report, as the console's JSON. */
export const GET = apiRoute({ auth: { token: "read" } }, ({ req }) => pairReportResponse(req.url));
