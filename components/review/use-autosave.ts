"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { saveDraftAction } from "@/lib/actions/review.ts";
import type { DraftBody } from "@/lib/review/schema.ts";

const DEBOUNCE_MS = 1200;
/** While the annotator is active but changes nothing (reading a long trajectory), the lease is still renewed. */
const HEARTBEAT_MS = 3 * 60_000;

export type SaveStatus = {
  state: "idle" | "saving" | "saved" | "lost" | "error";
  at?: Date;
  leaseUntil?: Date;
  message?: string;
};

/**
 * Time spent and the draft autosave. Seconds count only while the tab is visible. A change saves after a short
 * pause; activity without changes (keys, scrolling, pointer) saves every few minutes so the lease does not lapse.
 * Each save renews the lease on the server.
 */
export function useAutosave(itemId: string, body: DraftBody, initialSeconds: number, initialLease: string) {
  const seconds = useRef(initialSeconds);
  const [status, setStatus] = useState<SaveStatus>({ state: "idle", leaseUntil: new Date(initialLease) });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastSave = useRef(0);
  const lastActivity = useRef(0);
  const stopped = useRef(false);
  const bodyRef = useRef(body);
  useEffect(() => {
    bodyRef.current = body;
  }, [body]);
  const first = useRef(true);

  const save = useCallback(async () => {
    if (stopped.current) return;
    lastSave.current = Date.now();
    setStatus((s) => ({ ...s, state: "saving" }));
    const r = await saveDraftAction({ itemId, body: bodyRef.current, secondsSpent: seconds.current });
    if (stopped.current) return;
    if (r.ok)
      setStatus({
        state: "saved",
        at: new Date(),
        leaseUntil: r.leaseExpiresAt ? new Date(r.leaseExpiresAt) : undefined,
      });
    else setStatus({ state: r.code === "lease_lost" ? "lost" : "error", message: r.error });
  }, [itemId]);

  const serialized = JSON.stringify(body);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), DEBOUNCE_MS);
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  }, [serialized, save]);

  useEffect(() => {
    // The page load took (or renewed) the lease: that counts as the last save for the heartbeat.
    lastSave.current = Date.now();
    const tick = setInterval(() => {
      if (document.visibilityState === "visible" && !stopped.current) seconds.current += 1;
    }, 1000);
    const active = () => {
      lastActivity.current = Date.now();
    };
    const beat = setInterval(() => {
      if (lastActivity.current > lastSave.current && Date.now() - lastSave.current >= HEARTBEAT_MS) void save();
    }, 30_000);
    window.addEventListener("keydown", active);
    window.addEventListener("pointermove", active, { passive: true });
    window.addEventListener("scroll", active, { passive: true });
    return () => {
      clearInterval(tick);
      clearInterval(beat);
      window.removeEventListener("keydown", active);
      window.removeEventListener("pointermove", active);
      window.removeEventListener("scroll", active);
    };
  }, [save]);

  /** Stops autosaving (before submit or skip, so a late save cannot report a lost lease). */
  const stop = useCallback(() => {
    stopped.current = true;
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const resume = useCallback(() => {
    stopped.current = false;
  }, []);

  return { status, seconds, stop, resume };
}
