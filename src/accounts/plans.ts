import type { JsonKv } from '../bus/index.ts';
import { NotFoundError } from '../errors.ts';
import type { Plan } from '../../schemas/accounts.ts';
import type { UserRecord, UsernameRecord } from '../../schemas/account-records.ts';

export interface PlanChange {
  user_id: number;
  username: string;
  previous: Plan;
  plan: Plan;
}

/**
 * Puts a user on a plan (the operator's `signalforge admin plan`). The user record changes by
 * compare-and-set, so a key rotation at the same moment is neither lost nor undone; every edge
 * process sees the new plan through its directory watch (and tops the balance up to the plan's
 * monthly allowance: see CreditLedger). Pro raises the deployment limit and the monthly credits,
 * and gives 20 % of the user's fork revenue to charity.
 */
export async function changePlan(
  kv: { users: JsonKv<typeof UserRecord>; usernames: JsonKv<typeof UsernameRecord> },
  username: string,
  plan: Plan,
): Promise<PlanChange> {
  const owner = await kv.usernames.get(username.toLowerCase());
  if (!owner) throw new NotFoundError(`no user named "${username}": check the handle (GET /api/v1/whoami-key shows it)`);
  let previous: Plan = plan;
  const { value } = await kv.users.mutate(String(owner.value.user_id), (current) => {
    if (!current) throw new NotFoundError(`user "${username}" (id ${owner.value.user_id}) has a handle but no account`);
    previous = current.plan;
    return { ...current, plan };
  });
  return { user_id: value.user_id, username: value.username, previous, plan: value.plan };
}
