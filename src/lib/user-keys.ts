/**
 * KV keys of things a user names (models, deployments): `<user_id>.<hex of the name>`. KV keys
 * allow only a few characters, so the display name travels hex-encoded; `<user_id>.>` lists them.
 */
export const userNameKey = (userId: number, name: string): string => `${userId}.${Buffer.from(name, 'utf8').toString('hex')}`;

/** The KV filter of every key `userNameKey` makes for one user. */
export const userKeysFilter = (userId: number): string => `${userId}.>`;
