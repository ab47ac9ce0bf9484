import { z } from 'zod';
import { Plan } from './accounts.ts';
import { IsoDate } from './common.ts';
import { CommunityEntryRecord } from './community.ts';

/**
 * Fork revenue share (the contract's limits, item 6): the author of a shared entry receives 10 % of
 * the billable credit spend of whoever publishes a fork of it, during the 30 days after the fork's
 * publication, at most 200 credits per UTC day per parent author, settled by a daily sweep; when
 * the parent author is on pro, 20 % of that payout is donated to charity instead.
 * How the numbers are reached is in src/payouts/README.md.
 */
export const PAYOUT_TERMS = {
  share_pct: 10,
  window_days: 30,
  daily_cap: 200,
  pro_charity_pct: 20,
} as const;

/** What the sweep reads of a community entry: who published it, when, and what it was forked from. */
export const EntryLink = CommunityEntryRecord.pick({ community_id: true, user_id: true, author: true, parent_id: true, created_at: true });
export type EntryLink = z.infer<typeof EntryLink>;

/** `YYYY-MM-DD`, the UTC day a payout settles. */
const Day = IsoDate;

/**
 * One parent author's settlement of one UTC day (KV `sf_payout_marks`, key `<yyyymmdd>.<parent user_id>`),
 * created once (KV create: the first sweeper wins) before the parent is credited. Every sweeper
 * that reaches this parent and day — a second process, or this one after a restart — credits and
 * writes ledger rows from this record, never from a fresh computation, so a plan changed or a
 * usage row landing late in between cannot make the credit and the ledger disagree.
 */
export const PayoutMark = z.object({
  day: Day,
  parent_user: z.number().int().positive(),
  parent_author: z.string(),
  plan: Plan.describe("The parent author's plan when the day was settled"),
  created_at: z.number().int().describe('epoch ms: when the day was settled for this parent'),
  /** Compact (a popular entry may have thousands of paying forks in a day): [parent entry, child entry, child user, billable spend]. */
  children: z.array(z.tuple([z.number().int(), z.number().int(), z.number().int(), z.number().int().min(0)])),
});
export type PayoutMark = z.infer<typeof PayoutMark>;

/** The sweep's progress and lease (KV `sf_payout_sweep`, key `state`), both changed by compare-and-set. */
export const PayoutSweepState = z.object({
  settled_through: Day.nullable().describe('The last UTC day settled (days settle in order)'),
  holder: z.string().nullable().describe('The sweeper working now; null when none'),
  lease_until: z.number().int().describe('epoch ms: the holder must renew before this, else another sweeper takes over'),
});
export type PayoutSweepState = z.infer<typeof PayoutSweepState>;

// ---- GET /api/v1/payouts -------------------------------------------------------------------

export const PAYOUT_PAGE_MAX = 200;
const DONOR_CURSOR = /^\d{4}-\d{2}-\d{2}~[A-Za-z0-9][A-Za-z0-9_-]{0,19}$/;
const EARNING_CURSOR = /^\d{4}-\d{2}-\d{2}~\d{1,15}$/;

export const PayoutsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAYOUT_PAGE_MAX)
    .default(50)
    .describe(`Rows per list (charity, earnings); at most ${PAYOUT_PAGE_MAX}`),
  before: z
    .string()
    .regex(DONOR_CURSOR, 'pass the charity.next_before of the previous page')
    .optional()
    .describe('Charity rows after this cursor (`charity.next_before` of the previous page)')
    .meta({ examples: ['2025-03-09~brisk-otter-17'] }),
  earnings_before: z
    .string()
    .regex(EARNING_CURSOR, 'pass the earnings.next_before of the previous page')
    .optional()
    .describe('Earnings rows after this cursor (`earnings.next_before` of the previous page); with a key only')
    .meta({ examples: ['2025-03-09~19'] }),
});
export type PayoutsQuery = z.infer<typeof PayoutsQuery>;

export const CharityRow = z.object({
  day: Day,
  donor: z.string().describe('Handle of the parent author whose fork revenue the donation came from'),
  credits: z.number().int().describe('Credits donated that day out of that author’s fork revenue'),
  forks: z.number().int().describe('Paying forks that day'),
});

export const EarningRow = z.object({
  day: Day,
  parent_id: z.number().int().describe('Your community entry that was forked'),
  child_id: z.number().int().describe('The fork (community entry) whose publisher spent'),
  child_author: z.string().describe('Handle of the fork’s publisher'),
  share: z.number().int().describe('Your share of that day (10 % of the spend, capped at 200 per day over all your forks)'),
  credited: z.number().int().describe('Credited to your balance'),
  charity: z.number().int().describe('Donated to charity (pro plan: 20 % of the share)'),
});

const example = {
  terms: PAYOUT_TERMS,
  settled_through: '2025-03-09',
  charity: {
    total_credits: 41,
    donations: 12,
    rows: [{ day: '2025-03-09', donor: 'brisk-otter-17', credits: 4, forks: 2 }],
    next_before: '2025-03-09~brisk-otter-17',
  },
  earnings: {
    username: 'brisk-otter-17',
    total_credits_earned: 152,
    total_donated: 38,
    rows: [{ day: '2025-03-09', parent_id: 7, child_id: 19, child_author: 'calm-heron-03', share: 12, credited: 10, charity: 2 }],
    next_before: null,
  },
};

export const PayoutsResponse = z
  .object({
    terms: z
      .object({
        share_pct: z.number().int(),
        window_days: z.number().int(),
        daily_cap: z.number().int(),
        pro_charity_pct: z.number().int(),
      })
      .describe('The revenue-share rules the ledger applies'),
    settled_through: Day.nullable().describe('The last UTC day the sweep has settled; null before the first'),
    charity: z
      .object({
        total_credits: z.number().int().describe('Every credit donated so far'),
        donations: z.number().int().describe('Donations so far (one per donor per day)'),
        rows: z.array(CharityRow).describe('Newest day first, then by donor'),
        next_before: z.string().nullable().describe('Pass as `before` for the next page; null on the last'),
      })
      .describe('The public charity ledger: handles only'),
    earnings: z
      .object({
        username: z.string(),
        total_credits_earned: z.number().int().describe('Every credit your forks have paid you'),
        total_donated: z.number().int().describe('Credits donated to charity out of your share (pro plan)'),
        rows: z.array(EarningRow).describe('Newest day first, then by fork'),
        next_before: z.string().nullable().describe('Pass as `earnings_before` for the next page; null on the last'),
      })
      .nullable()
      .describe('What the caller has earned from forks; null without a key'),
  })
  .meta({ id: 'PayoutsResponse', examples: [example] });
export type PayoutsResponse = z.infer<typeof PayoutsResponse>;
