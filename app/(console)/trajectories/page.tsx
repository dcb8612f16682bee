import type { Metadata } from "next";
import Link from "next/link";
import { LedgerTable } from "@/components/ledger/ledger-table.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { listLedgerPage } from "@/lib/ledger/data.ts";
import { ledgerPageParams } from "@/lib/ledger/schema.ts";

export const metadata: Metadata = { title: "Trajectories" };

export default async function TrajectoriesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[]>> }) {
  const parsed = ledgerPageParams.safeParse(await searchParams);
  if (!parsed.success) {
    return (
      <>
        <PageHeader title="Trajectories" />
        <EmptyState title="This link has a bad filter">
          {parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.{" "}
          <Link className="text-accent" href="/trajectories">Clear the filters</Link>
        </EmptyState>
      </>
    );
  }
  const q = parsed.data;
  const page = await listLedgerPage({ runId: q.run, before: q.before, limit: q.limit });
  const nextHref = page.nextBefore
    ? `/trajectories?${new URLSearchParams({ ...(q.run ? { run: q.run } : {}), before: page.nextBefore.toString() })}`
    : null;
  return (
    <>
      <PageHeader
        title="Trajectories"
        description={q.run ? `Current score records of run ${q.run}, newest first.` : "Current score records of every run, newest first."}
      />
      {page.rows.length === 0 ? (
        <EmptyState title={q.before ? "No more rollouts" : "No rollouts in the ledger yet"}>
          Ingest rollouts with <code>npm run -s verity -- ingest FILE</code> or the ingest API.
        </EmptyState>
      ) : (
        <Card
          actions={
            nextHref && (
              <Link className="text-accent hover:underline" href={nextHref}>
                Next page →
              </Link>
            )
          }
          title={`${page.rows.length} rollouts on this page`}
        >
          <LedgerTable rows={page.rows} />
        </Card>
      )}
    </>
  );
}
