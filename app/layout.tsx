import type { Metadata } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Verity", template: "%s · Verity" },
  description: "Review console for the reward ledger of an agentic-RL training run.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = (await cookies()).get("verity-theme")?.value;
  const cls = theme === "dark" || theme === "light" ? theme : undefined;
  return (
    <html lang="en" className={cls}>
      <body>{children}</body>
    </html>
  );
}
