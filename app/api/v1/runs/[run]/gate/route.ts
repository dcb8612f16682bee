// GET /api/v1/runs/{run}/gate?window_steps=N (token scope `read`): the run's audit gate (lib/gate/api.ts).
import { gateRoute } from "@/lib/gate/api.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = gateRoute();
