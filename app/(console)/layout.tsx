import { cookies } from "next/headers";
import { Suspense, type ReactNode } from "react";
import { HydrationMarker } from "@/components/layout/hydration-marker.tsx";
import { RememberRun } from "@/components/layout/remember-run.tsx";
import { ReplicaLagBanner } from "@/components/layout/replica-lag-banner.tsx";
import { navItemsFor, Sidebar } from "@/components/layout/sidebar.tsx";
import { UserMenu } from "@/components/layout/user-menu.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { recentReplicaLag } from "@/lib/db/replica-lag.ts";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requirePageUser();
  const t = (await cookies()).get("verity-theme")?.value;
  const theme = t === "dark" || t === "light" ? t : "system";
  const lag = await recentReplicaLag();
  return (
    <div className="flex min-h-screen">
      <Sidebar items={navItemsFor(user.role)} theme={theme} footer={<UserMenu email={user.email} role={user.role} />} />
      <main className="min-w-0 flex-1 px-6 py-5">
        <ReplicaLagBanner lag={lag} />
        {children}
      </main>
      <HydrationMarker />
      <Suspense fallback={null}>
        <RememberRun />
      </Suspense>
    </div>
  );
}
