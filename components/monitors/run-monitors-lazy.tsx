"use client";
// The charts load in the browser only: Recharts measures its container, so there is nothing to render on the server,
// and leaving it out of the server bundle keeps the run page's first response fast (the alarms and figures above the
// charts are server-rendered and readable at once).
import dynamic from "next/dynamic";

export const RunMonitorsLazy = dynamic(
  () => import("@/components/monitors/run-monitors.tsx").then((m) => m.RunMonitors),
  {
    ssr: false,
    loading: () => (
      <p
        className="rounded-md border border-border bg-bg px-3 py-10 text-center text-[13px] text-fg-muted"
        role="status"
      >
        Loading charts…
      </p>
    ),
  },
);
