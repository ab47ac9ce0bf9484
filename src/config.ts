import { defaultDataDir, EnvConfig } from '../schemas/config.ts';

export type Config = EnvConfig;

/** Thrown when the environment holds a value the service cannot start with. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment with the one config schema. A bad value stops the start with a message
 * naming each offending variable and what it allows.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(EnvConfig.shape)) {
    const value = env[key];
    // An empty variable counts as unset, as shells and compose files tend to leave them.
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  // The default state directory follows the environment given, not only this process's.
  relevant.DATA_DIR ??= defaultDataDir(env);
  const parsed = EnvConfig.safeParse(relevant);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const variable = String(issue.path[0] ?? '?');
    return `  ${variable}=${JSON.stringify(relevant[variable])}: ${issue.message}`;
  });
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}
