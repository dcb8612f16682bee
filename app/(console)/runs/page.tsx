import type { Metadata } from "next";
import { RunsTable } from "@/components/runs/runs-table.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { listRunSummaries } from "@/lib/runs/data.ts";

export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage() {
  const runs = await listRunSummaries();
  return (
    <>
      <PageHeader title="Runs" description="Training runs in the reward ledger, with totals over their current score records." />
      {runs.length === 0 ? (
        <EmptyState title="No runs yet">
          Push rollouts or score records to <code>POST /api/v1/ingest</code>, or load a file with{" "}
          <code>npm run -s verity -- ingest FILE</code>.
        </EmptyState>
      ) : (
        <Card>
          <RunsTable runs={runs} />
        </Card>
      )}
    </>
  );
}
