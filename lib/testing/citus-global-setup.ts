// Vitest's global setup of the Citus tests (the "citus" project of vitest.config.ts): one cluster for the whole run,
// started before the first test file and stopped after the last. Its coordinator's URL reaches the tests through
// inject("citusUrl"), its workers' through inject("citusWorkerUrls").
import type { TestProject } from "vitest/node";
import { startCitusCluster } from "@/lib/testing/citus-cluster.ts";

declare module "vitest" {
  export interface ProvidedContext {
    citusUrl: string;
    citusWorkerUrls: string[];
  }
}

export default async function setup(project: TestProject) {
  const started = Date.now();
  const cluster = await startCitusCluster();
  process.stdout.write(
    `citus cluster: a coordinator and ${cluster.workerUrls.length} workers in ${Date.now() - started} ms\n`,
  );
  project.provide("citusUrl", cluster.url);
  project.provide("citusWorkerUrls", cluster.workerUrls);
  return () => cluster.stop();
}
