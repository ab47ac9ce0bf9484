import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { strictObject } from './strict.ts';

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_\-]{2,19}$/;
export const Username = z
  .string()
  .regex(USERNAME_PATTERN, '3-20 characters: letters, digits, _ or -, starting with a letter or digit')
  .describe('Public handle; permanent for trial keys');

export const Plan = z.enum(['free', 'pro']);
export type Plan = z.infer<typeof Plan>;

export const TrialKeyRequest = strictObject({
  username: Username.optional().describe('Omit to get an auto handle adjective-noun-NN'),
}).meta({
  id: 'TrialKeyRequest',
});

/** The body of a POST that takes no fields: nothing, or `{}`. */
export const NoFields = strictObject({}).describe('No fields: send no body, or {}');
export type TrialKeyRequest = z.infer<typeof TrialKeyRequest>;

/** Response of POST /key/trial and POST /key/generate (the key is shown only here, once). */
export const KeyResponse = z
  .object({
    api_key: z.string().describe('Send as the X-API-Key header. Shown once: only its hash is stored'),
    credits: z.number().int().describe('Credit balance'),
    is_trial: z.boolean(),
    user_id: z.number().int(),
    username: z.string(),
  })
  .meta({ id: 'KeyResponse' });
export type KeyResponse = z.infer<typeof KeyResponse>;

export const WhoamiResponse = z
  .object({
    api_key: z.string().describe('The key in masked form (prefix … last 4): the full key is never stored'),
    is_trial: z.boolean(),
    plan: Plan,
    user_id: z.number().int(),
    username: z.string(),
  })
  .meta({ id: 'WhoamiResponse' });
export type WhoamiResponse = z.infer<typeof WhoamiResponse>;

export const LogoutResponse = z
  .object({ logged_out: z.boolean().describe('true when a live session was ended; false when none was sent') })
  .meta({ id: 'LogoutResponse' });

export const UsageEvent = z.object({
  seq: z.number().int().describe('Ledger sequence: increases with every balance change; the paging cursor'),
  ts: IsoDateTime,
  delta: z.number().int().describe('Credits added (positive) or spent (negative)'),
  balance_after: z.number().int(),
  reason: z.string().describe('What the credits paid for, e.g. signup, generate, one_shot, refund'),
  ref: z.string().describe('Reference of the operation (job id, model stem…); empty when none'),
});
export type UsageEvent = z.infer<typeof UsageEvent>;

export const UsageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  before: z.coerce.number().int().min(1).optional().describe('Only events with a seq below this (cursor)'),
});
export type UsageQuery = z.infer<typeof UsageQuery>;

export const UsageResponse = z
  .object({
    user_id: z.number().int(),
    balance: z.number().int().describe('Current credit balance'),
    spent_today: z.number().int().describe('Credits spent since UTC midnight'),
    count: z.number().int(),
    history: z.array(UsageEvent).describe('Newest first'),
    next_before: z.number().int().nullable().describe('Pass as `before` for the next page; null on the last page'),
  })
  .meta({ id: 'UsageResponse' });
export type UsageResponse = z.infer<typeof UsageResponse>;

export const CAP_NAMES = ['train_compute', 'generate_sonnet', 'generate_haiku', 'generate_opus'] as const;
export const CapName = z.enum(CAP_NAMES);
export type CapName = z.infer<typeof CapName>;

export const CapStatus = z.object({
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
});

export const CapsResponse = z
  .object({
    plan: Plan,
    date: z.iso.date().describe('The UTC day the counts belong to'),
    resets_at: IsoDateTime.describe('Next UTC midnight, when every daily count returns to 0'),
    caps: z.object({
      train_compute: CapStatus.describe('Training-compute runs (train, one_shot)'),
      generate_sonnet: CapStatus.describe('Generations with ai_model sonnet'),
      generate_haiku: CapStatus.describe('Generations with ai_model haiku'),
      generate_opus: CapStatus.describe('Generations with ai_model opus'),
    }),
    rate_limit: z.object({ per_minute: z.number().int(), concurrent_sse: z.number().int() }),
    credits: z.object({ balance: z.number().int() }),
    cost_guard: z
      .object({
        daily_budget_usd: z.number(),
        spent_today_usd: z.number(),
        status: z.enum(['ok', 'exhausted']),
      })
      .describe('Platform-wide AI spend guard: when exhausted, generation falls back to the offline generator'),
  })
  .meta({ id: 'CapsResponse' });
export type CapsResponse = z.infer<typeof CapsResponse>;
