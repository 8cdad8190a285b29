// The deployment engine: one driver interface (build, apply, stop, restart, uninstall, read
// status) that the deployment runner calls step by step, and the choice of driver by config.
// Drivers never touch the database: they report log lines through a LogSink and throw
// EngineFailure when a step fails (the runner records the outcome).
import type { EngineKind } from '../config/config.ts';
import { createSimulatedDriver } from './simulated.ts';

export type LogKind = 'BUILD' | 'DEPLOY' | 'RUNTIME';

export interface LogSink {
  (kind: LogKind, message: string): Promise<void>;
}

/** what a driver needs to know about the service it acts on */
export interface DriverService {
  id: string;
  type: string;
  name: string;
  slug: string;
  environmentId: string;
  spec: Record<string, unknown>;
  advancedSettings: Record<string, unknown>;
  gitCommitId: string | null;
  imageTag: string | null;
  /** value of the service's BERTH_SIMULATE_FAILURE variable (simulated engine: build or deploy) */
  simulateFailure?: string | null;
}

export interface RuntimeStatus {
  state: 'RUNNING' | 'STOPPED' | 'ERROR' | 'UNKNOWN';
}

/** a step failed for a reason the user should see (BUILD_ERROR / DEPLOYMENT_ERROR) */
export class EngineFailure extends Error {
  readonly phase: 'build' | 'deploy' | 'stop' | 'restart' | 'uninstall';
  constructor(phase: EngineFailure['phase'], message: string) {
    super(message);
    this.phase = phase;
  }
}

export interface EngineDriver {
  readonly name: EngineKind;
  /** whether the service is built from source (a BUILDING step) */
  needsBuild(service: DriverService): boolean;
  build(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  /** create or update the service's objects and wait until it runs */
  apply(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  stop(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  restart(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  /** remove the running objects; the configuration stays */
  uninstall(service: DriverService, log: LogSink, signal: AbortSignal): Promise<void>;
  status(service: DriverService): Promise<RuntimeStatus>;
}

let driver: EngineDriver | undefined;

export function engineDriver(kind: EngineKind): EngineDriver {
  if (kind === 'kubernetes') throw new Error('ENGINE=kubernetes is not available yet; use ENGINE=docker or ENGINE=simulated');
  driver ??= createSimulatedDriver();
  return driver;
}
