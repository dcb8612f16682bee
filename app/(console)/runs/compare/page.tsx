import type { Metadata } from "next";
import { CompareForm } from "@/components/runs/compare-form.tsx";
import { Card } from "@/components/ui/card.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { queryRecord } from "@/lib/monitors/schema.ts";
import { listRunIds } from "@/lib/runs/data.ts";

export const metadata: Metadata = { title: "Compare runs" };

// /runs/compare?a=…&b=… is the run page of a with b overlaid on every chart (/runs/a?compare=b): one view, two
// addresses; the proxy redirects it there (lib/runs/location.ts compareTarget). Without two runs it asks for them.
export default async function CompareRunsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("runs.read");
  const q = queryRecord(await searchParams);
  const a = q.a?.trim();
  const b = q.b?.trim();
  const runIds = await listRunIds();
  return (
    <>
      <PageHeader title="Compare runs" description="Overlay two runs on the same charts and step axis." />
      <Card>
        <div className="p-3">
          {runIds.length < 2 ? (
            <p className="text-fg-muted">Comparing needs at least two runs.</p>
          ) : (
            <CompareForm runIds={runIds} a={a} b={b} />
          )}
        </div>
      </Card>
    </>
  );
}
