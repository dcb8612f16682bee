import { NextResponse } from "next/server";
import { apiRoute } from "@/lib/api/route.ts";
import { checkHealth } from "@/lib/db/health.ts";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ auth: { public: true } }, async () => {
  const health = await checkHealth();
  return NextResponse.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
});
