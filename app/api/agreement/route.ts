import { agreementResponse } from "@/lib/agreement/respond.ts";
import { routeUser } from "@/lib/auth/route-user.ts";

export const dynamic = "force-dynamic";

/** The agreement page's report as JSON, for signed-in readers of the ledger. */
export async function GET(req: Request) {
  const auth = await routeUser("ledger.read");
  if (!auth.ok) return auth.response;
  return agreementResponse(req.url);
}
