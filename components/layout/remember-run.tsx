"use client";
// Remembers the run of the page the user is looking at (`/runs/<run>`, `?run=`) in a cookie, so that a run-scoped
// page opened without one (the clusters) opens on the run last looked at. It runs in the browser after a page is
// shown, on a full load and on every client-side navigation, and never for a link the router only prefetched: the
// proxy cannot tell those apart (Next strips the router's headers before it), and prefetches of the sidebar's and
// the tables' links would otherwise move the cookie to runs nobody opened.
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { LAST_RUN_COOKIE, lastRunCookieValue, runOfLocation } from "@/lib/runs/location.ts";

export function RememberRun() {
  const pathname = usePathname();
  const search = useSearchParams();
  const run = runOfLocation(pathname, search);
  useEffect(() => {
    if (!run) return;
    const secure = window.location.protocol === "https:" ? "; secure" : "";
    // A run id, not a secret: readable by the page's own script, like the theme.
    document.cookie = `${LAST_RUN_COOKIE}=${lastRunCookieValue(run)}; path=/; max-age=31536000; samesite=lax${secure}`;
  }, [run]);
  return null;
}
