import { NextResponse } from "next/server";
import { checkHealth } from "@/lib/db/health.ts";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  return NextResponse.json(health, { status: health.ok ? 200 : 503, headers: { "cache-control": "no-store" } });
}
