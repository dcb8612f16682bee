"use client";

import { useEffect, useRef, type ReactNode } from "react";
import { isTyping, SECTION_KEYS } from "@/components/review/reading-keys.ts";
import { cn } from "@/components/ui/cn.ts";

/** Scrolls the pane when it has its own scrollbar (wide screens), else the page. */
function scrollPane(pane: HTMLElement, direction: 1 | -1) {
  const own = pane.scrollHeight > pane.clientHeight + 1;
  const by = direction * Math.round((own ? pane.clientHeight : window.innerHeight) * 0.4);
  if (own) pane.scrollBy({ top: by });
  else window.scrollBy({ top: by });
}

/** Brings the next (or previous) step's top to the top of the pane. */
function jumpStep(pane: HTMLElement, direction: 1 | -1) {
  const own = pane.scrollHeight > pane.clientHeight + 1;
  const top = own ? pane.getBoundingClientRect().top : 0;
  const steps = [...pane.querySelectorAll<HTMLElement>("[data-testid=timeline] > li")];
  const offsets = steps.map((s) => s.getBoundingClientRect().top - top);
  const i = direction === 1 ? offsets.findIndex((o) => o > 4) : offsets.findLastIndex((o) => o < -4);
  if (i >= 0) steps[i].scrollIntoView({ block: "start" });
}

/** Opens a section when any of its <details> is closed, else closes them all; keeps its summary in view. */
function toggleSection(pane: HTMLElement, section: string) {
  const all = [...pane.querySelectorAll<HTMLDetailsElement>(`details[data-section="${section}"]`)];
  if (all.length === 0) return;
  const open = all.some((d) => !d.open);
  for (const d of all) d.open = open;
  if (open && all.length === 1) all[0].querySelector("summary")?.scrollIntoView({ block: "nearest" });
}

/**
 * The rollout, readable by keyboard: J/K (or shift+↓/↑) scroll it, ] and [ jump between steps, i, e and v open and
 * close the steps' inputs, the environment snapshot and the verifier spec (the keys of reading-keys.ts). On wide
 * screens the pane scrolls on its own, so the form beside it stays in view.
 */
export function ReadingPane({ children, className }: { children: ReactNode; className?: string }) {
  const pane = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = pane.current;
    if (!el) return;
    el.setAttribute("data-ready", "true");
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const down = e.key === "J" || (e.shiftKey && e.key === "ArrowDown");
      const up = e.key === "K" || (e.shiftKey && e.key === "ArrowUp");
      if (down || up) scrollPane(el, down ? 1 : -1);
      else if (e.key === "]" || e.key === "[") jumpStep(el, e.key === "]" ? 1 : -1);
      else if (SECTION_KEYS[e.key]) toggleSection(el, SECTION_KEYS[e.key]);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <div ref={pane} data-testid="rollout-pane" className={cn("min-w-0", className)}>
      {children}
    </div>
  );
}
