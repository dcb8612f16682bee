import type { ReactNode } from "react";
import { HydrationMarker } from "@/components/layout/hydration-marker.tsx";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center bg-bg-subtle px-4 pt-24">
      {children}
      <HydrationMarker />
    </main>
  );
}
