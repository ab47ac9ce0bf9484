import type { DeliveryChannel } from '../../schemas/delivery.ts';

/** KV key of a channel's delivery state: `<channel>.<deployment_id>`. */
export const stateKey = (channel: DeliveryChannel, deploymentId: string): string => `${channel}.${deploymentId}`;

/** KV key prefix of a channel's dead letters. */
export const deadPrefix = (channel: DeliveryChannel, deploymentId: string): string => `${channel}.${deploymentId}`;

/** KV key of one dead letter: `<channel>.<deployment_id>.<stream seq>`. */
export const deadKey = (channel: DeliveryChannel, deploymentId: string, seq: number): string => `${channel}.${deploymentId}.${seq}`;
