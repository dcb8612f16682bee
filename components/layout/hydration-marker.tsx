"use client";

import { useEffect } from "react";

/**
 * Marks <html data-hydrated> once React has hydrated the page. Forms submitted before that post natively and lose
 * their inline answers (useActionState), so end-to-end tests wait for this mark before they click.
 */
export function HydrationMarker() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "1";
  }, []);
  return null;
}
