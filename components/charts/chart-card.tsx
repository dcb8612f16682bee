import type { ReactNode } from "react";

/**
 * A chart's frame: title, what to read in it, its alarm state, controls, and the download of the data behind it.
 * `csvHref` points at the console route that writes the same table as CSV.
 */
export function ChartCard({
  id,
  title,
  description,
  status,
  controls,
  csvHref,
  children,
}: {
  id: string;
  title: string;
  description: ReactNode;
  status?: ReactNode;
  controls?: ReactNode;
  csvHref: string;
  children: ReactNode;
}) {
  return (
    <section id={id} aria-labelledby={`${id}-title`} className="rounded-md border border-border bg-bg">
      <header className="flex flex-wrap items-start justify-between gap-2 border-b border-border px-3 py-2">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h2 id={`${id}-title`} className="text-[13px] font-semibold">
              {title}
            </h2>
            {status}
          </div>
          <p className="mt-0.5 text-[11px] text-fg-muted">{description}</p>
        </div>
        <div className="flex items-center gap-3 text-[12px]">
          {controls}
          <a
            href={csvHref}
            download
            className="text-accent hover:underline"
            aria-label={`Download the data of ${title} as CSV`}
          >
            CSV
          </a>
        </div>
      </header>
      {children}
    </section>
  );
}
