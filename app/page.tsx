import { redirect } from "next/navigation";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { homePath } from "@/lib/auth/policy.ts";

export default async function Home() {
  const user = await requirePageUser();
  redirect(homePath(user.role));
}
