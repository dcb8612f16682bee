// While the run page reads its ledger rollups and evaluates its alarms (its layout has settled access and existence).
export default function Loading() {
  return (
    <p className="rounded-md border border-border bg-bg px-3 py-10 text-center text-[13px] text-fg-muted" role="status">
      Loading the run…
    </p>
  );
}
