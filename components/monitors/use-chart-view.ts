"use client";
// The run page's view of its charts: the step range (zoom) lives in the URL, so the server reads only the steps shown
// and a zoomed view can be linked; smoothing is a view option kept in the URL too, without a round trip.
import { usePathname, useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { ChartData } from "@/lib/monitors/loaders.ts";
import type { ChartName } from "@/lib/monitors/schema.ts";

export type ChartView = ReturnType<typeof useChartView>;

export function useChartView(
  data: ChartData,
  keep: Record<string, string>,
  csvBase: string,
  addressSmoothError: string | undefined,
) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  const [smooth, setSmooth] = useState(data.smooth);
  const [smoothError, setSmoothError] = useState(addressSmoothError);
  const { range, extent } = data;
  const zoomed = range.from !== extent.first || range.to !== extent.last;

  const params = (over: Record<string, string | number | null>) => {
    const p = new URLSearchParams(keep);
    const all: Record<string, string | number | null> = {
      from: zoomed ? range.from : null,
      to: zoomed ? range.to : null,
      smooth: smooth > 1 ? smooth : null,
      ...over,
    };
    for (const [k, v] of Object.entries(all)) if (v !== null) p.set(k, String(v));
    return p;
  };
  const zoom = (from: number, to: number) => {
    const whole = from <= extent.first && to >= extent.last;
    const p = params(whole ? { from: null, to: null } : { from, to });
    startTransition(() => router.replace(`${pathname}?${p}`, { scroll: false }));
  };
  const setSmoothing = (w: number) => {
    setSmooth(w);
    setSmoothError(undefined);
    // A view option: update the address without asking the server again.
    window.history.replaceState(null, "", `${pathname}?${params({ smooth: w > 1 ? w : null })}`);
  };
  const csv = (chart: ChartName) => {
    const p = params({});
    if (chart === "audit" || chart === "corrected") p.delete("smooth");
    return `${csvBase}/${chart}?${p}`;
  };
  return { pending, smooth, smoothError, zoom, setSmoothing, csv };
}
