import { apiRoute } from "@/lib/api/route.ts";
import { pairReportResponse } from "@/lib/pairwise/report-respond.ts";

export const dynamic = "force-dynamic";

/** The pairwise report page's figures as JSON, for signed-in readers of the ledger. */
export const GET = apiRoute({ auth: { session: "ledger.read" } }, ({ req }) => pairReportResponse(req.url));
