"use client";

import { useState } from "react";

type Theme = "system" | "light" | "dark";
const next: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };

/** Cycles system → light → dark; the choice is kept in a cookie so the server renders the right class. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  function cycle() {
    const t = next[theme];
    setTheme(t);
    document.cookie = `verity-theme=${t}; path=/; max-age=31536000; samesite=lax`;
    const root = document.documentElement;
    root.classList.remove("light", "dark");
    if (t !== "system") root.classList.add(t);
  }
  return (
    <button
      type="button"
      onClick={cycle}
      className="w-full rounded px-2 py-1 text-left text-[12px] text-fg-muted hover:bg-bg-muted"
      aria-label={`Theme: ${theme}. Switch to ${next[theme]}.`}
    >
      Theme: {theme}
    </button>
  );
}
