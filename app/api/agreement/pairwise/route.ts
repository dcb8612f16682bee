import { routeUser } from "@/lib/auth/route-user.ts";
import { pairReportResponse } from "@/lib/pairwise/report-respond.ts";

export const dynamic = "force-dynamic";

/** The pairwise report page's figures as JSON, for signed-in readers of the ledger. */
export async function GET(req: Request) {
  const auth = await routeUser("ledger.read");
  if (!auth.ok) return auth.response;
  return pairReportResponse(req.url);
}
