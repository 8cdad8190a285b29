// The one error a bad configuration value raises: startup prints its message (naming the variable) and stops.
export class ConfigError extends Error {}
