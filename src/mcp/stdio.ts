/**
 * `signalforge mcp`: the same tools as the hosted /mcp, plus get_trial_key, over stdio, talking
 * to a signalforge service at SIGNALFORGE_URL with SIGNALFORGE_API_KEY (optional: without it a
 * trial key is minted on first use through POST /api/v1/key/trial). stdout carries MCP frames
 * only; logs go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { z } from 'zod';
import { EnvConfig } from '../../schemas/config.ts';
import { ConfigError } from '../config.ts';
import { createLogger } from '../log.ts';
import { ApiClient } from './api-client.ts';
import { buildMcpServer } from './tools.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export const StdioEnv = z.object({
  SIGNALFORGE_URL: z
    .url({ protocol: /^https?$/ })
    .default(DEFAULT_URL)
    .describe('Base URL of the signalforge service'),
  SIGNALFORGE_API_KEY: z.string().min(1).optional().describe('API key to use; without it a trial key is minted on first use'),
  LOG_LEVEL: EnvConfig.shape.LOG_LEVEL,
});
export type StdioEnv = z.infer<typeof StdioEnv>;

export function loadStdioEnv(env: NodeJS.ProcessEnv = process.env): StdioEnv {
  const relevant: Record<string, string> = {};
  for (const name of Object.keys(StdioEnv.shape)) {
    const value = env[name];
    if (value !== undefined && value !== '') relevant[name] = value;
  }
  const parsed = StdioEnv.safeParse(relevant);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}=${JSON.stringify(relevant[String(i.path[0])])}: ${i.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}

/** Serves MCP on stdin/stdout until stdin closes. */
export async function runStdio(env: StdioEnv = loadStdioEnv()): Promise<void> {
  const log = createLogger(env.LOG_LEVEL, pino.destination({ dest: 2, sync: true }));
  const configured = env.SIGNALFORGE_API_KEY;
  let key: Promise<string> | null = configured ? Promise.resolve(configured) : null;
  const api: ApiClient = new ApiClient({
    baseUrl: env.SIGNALFORGE_URL,
    // Minted on first use; a failed mint is tried again on the next call.
    key: () =>
      (key ??= api.mintTrialKey({}).then(
        (minted) => {
          log.info({ user_id: minted.user_id, username: minted.username, credits: minted.credits }, 'minted a trial key');
          return minted.api_key;
        },
        (err: unknown) => {
          key = null;
          throw err;
        },
      )),
  });

  const server = buildMcpServer({
    api,
    getTrialKey: async (request, signal) => {
      const minted = await api.mintTrialKey(request, signal);
      key = Promise.resolve(minted.api_key);
      log.info({ user_id: minted.user_id, username: minted.username }, 'get_trial_key: now using a new trial key');
      return minted;
    },
    hints: {
      402:
        'Call get_trial_key for a fresh trial key with new credits (the service allows 5 per IP address per hour by ' +
        'default), or set SIGNALFORGE_API_KEY to a key that has credits.',
      401: configured
        ? `SIGNALFORGE_API_KEY is not a valid key at ${env.SIGNALFORGE_URL}: correct it, or call get_trial_key.`
        : 'The trial key is no longer valid: call get_trial_key for a new one.',
      503: `Is signalforge running at ${env.SIGNALFORGE_URL}? Start it with \`signalforge serve\` or set SIGNALFORGE_URL.`,
    },
  });

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(transport);
  log.info(
    { url: env.SIGNALFORGE_URL, key_source: configured ? 'SIGNALFORGE_API_KEY' : 'a trial key minted on first use' },
    'signalforge mcp: serving over stdio',
  );
  await closed;
  await server.close().catch(() => undefined);
}
