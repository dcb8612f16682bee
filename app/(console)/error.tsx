"use client";
import Link from "next/link";

// An unexpected failure while rendering a console page, inside its sidebar. Next gives the browser only a digest of a
// server error (the message and stack stay in the server's log, under that digest); trying again re-renders the page.
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="mx-auto max-w-md py-16 text-center" role="alert">
      <h1 className="text-lg font-semibold">Something went wrong</h1>
      <p className="mt-2 text-fg-muted">
        This page could not be shown. Try again; if it keeps failing, give an admin the reference below.
      </p>
      {error.digest && <p className="mt-2 font-mono text-[12px] text-fg-subtle">reference {error.digest}</p>}
      <div className="mt-4 flex justify-center gap-3">
        <button type="button" className="rounded border border-border px-2 py-1 hover:bg-bg-muted" onClick={reset}>
          Try again
        </button>
        <Link className="px-2 py-1 text-accent hover:underline" href="/">
          Back to your start page
        </Link>
      </div>
    </div>
  );
}
