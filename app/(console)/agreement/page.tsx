import type { Metadata } from "next";
import { Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { countAgreement } from "@/lib/agreement/data.ts";

export const metadata: Metadata = { title: "Agreement" };

export default async function AgreementPage() {
  const c = await countAgreement();
  return (
    <>
      <PageHeader title="Agreement" description={`How often blind human scores land within ±${c.tolerance} of the ledger reward.`} />
      {c.reviewed === 0 ? (
        <EmptyState title="No shadow reviews yet">Agreement appears once annotators have reviewed items of an audit batch.</EmptyState>
      ) : (
        <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
          <Stat label="Reviewed items" value={fmtInt(c.reviewed)} />
          <Stat
            label="Agreeing"
            value={fmtInt(c.agreeing)}
            hint={c.reviewed < 30 ? "too few to say: fewer than 30 items" : `of ${fmtInt(c.reviewed)} (${((100 * c.agreeing) / c.reviewed).toFixed(1)}%)`}
          />
        </div>
      )}
    </>
  );
}
