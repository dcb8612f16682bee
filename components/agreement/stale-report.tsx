import { DateTime } from "@/components/ui/datetime.tsx";

/**
 * Said above the agreement figures while they are an earlier report's: the report under these filters changed (a
 * review, an adjudication, a re-score) and is slow to rebuild at this size, so the page shows the one before it
 * (lib/agreement/cached.ts loadAgreementReportLatest) while the new one is computed. Nothing when it is current.
 */
export function StaleReportNotice({ asOf, reloadHref }: { asOf: number | null; reloadHref: string }) {
  if (asOf === null) return null;
  return (
    <p
      role="status"
      data-testid="agreement-stale"
      className="mb-3 rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn"
    >
      These figures are as of <DateTime value={new Date(asOf)} seconds />: reviews, adjudications or re-scores since
      then are being added to a new report, which takes a few seconds at this size.{" "}
      <a className="underline" href={reloadHref}>
        Reload
      </a>{" "}
      to see it.
    </p>
  );
}
