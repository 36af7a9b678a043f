import { type SimulatorUrls, startSimulator } from 'partner-sim';
import type { TestProject } from 'vitest/node';

// What the tests may `inject`: plain data only (it crosses into the test workers).
declare module 'vitest' {
  export interface ProvidedContext {
    partnerSim: SimulatorUrls;
  }
}

export default async function setup(project: TestProject) {
  const sim = await startSimulator({ seed: 'my-ci-run' });
  project.provide('partnerSim', sim.urls);
  return () => sim.stop();
}
