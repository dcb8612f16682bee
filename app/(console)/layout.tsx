import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { NAV_ITEMS, Sidebar } from "@/components/layout/sidebar.tsx";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const t = (await cookies()).get("verity-theme")?.value;
  const theme = t === "dark" || t === "light" ? t : "system";
  return (
    <div className="flex min-h-screen">
      <Sidebar items={NAV_ITEMS} theme={theme} />
      <main className="min-w-0 flex-1 px-6 py-5">{children}</main>
    </div>
  );
}
