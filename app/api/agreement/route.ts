import { agreementResponse } from "@/lib/agreement/respond.ts";
import { apiRoute } from "@/lib/api/route.ts";

export const dynamic = "force-dynamic";

/** The agreement page's report as JSON, for signed-in readers of the ledger (the query: lib/agreement/respond.ts). */
export const GET = apiRoute({ auth: { session: "ledger.read" } }, ({ req }) => agreementResponse(req.url));
