// What a running berth holds: the platform (configuration, database, logger, queue, engine…) and
// the services the composition root (services.ts) builds over it. Routes, workers, the MCP server
// and the CLI's operator commands receive this context; modules receive only what they need.
import { createSimulatedDriver, type EngineDriver } from './engine/index.ts';
import type { Platform } from './platform.ts';
import { createServices, type Services, type Tuning } from './services.ts';

export interface AppContext extends Platform {
  readonly services: Services;
}

/** the platform's parts; the engine defaults to the simulated driver */
export type ContextParts = Omit<Platform, 'engine'> & { engine?: EngineDriver };

/** `tuning`: shorter periods for this context's services (tests); the defaults otherwise */
export function createContext(parts: ContextParts, tuning: Tuning = {}): AppContext {
  const platform: Platform = { ...parts, engine: parts.engine ?? createSimulatedDriver() };
  return { ...platform, services: createServices(platform, tuning) };
}
