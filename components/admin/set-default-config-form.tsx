"use client";

import { setDefaultConfigAction } from "@/lib/actions/admin-configs.ts";
import { ActionForm, SmallButton } from "@/components/admin/action-form.tsx";

export function SetDefaultConfigForm({ configId }: { configId: number }) {
  return (
    <ActionForm action={setDefaultConfigAction}>
      <input type="hidden" name="configId" value={configId} />
      <SmallButton>Make default</SmallButton>
    </ActionForm>
  );
}
