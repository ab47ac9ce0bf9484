import { DeliveryActor } from '../../actors/delivery/index.ts';
import { ownParts, type RoleContext, type RoleParts } from './context.ts';
import { baseChecks, roleCommand } from './kit.ts';

export interface DeliveryParts extends RoleParts {
  delivery: DeliveryActor;
}

/** Signal delivery (webhook, chat hooks, messenger, e-mail): deployments shared with the other copies by lease. */
export function buildDelivery(ctx: RoleContext): Promise<DeliveryParts> {
  return ownParts(ctx, async (own) => {
    const delivery = new DeliveryActor({ bus: ctx.bus, config: ctx.config, log: ctx.log });
    await delivery.start();
    own.push(() => delivery.stop());
    return {
      delivery,
      stats: () => {
        const sent = delivery.stats();
        return {
          signalforge_delivery_webhook_delivered_total: sent.delivered.webhook,
          signalforge_delivery_messenger_delivered_total: sent.delivered.messenger,
          signalforge_delivery_deployments: sent.deployments,
        };
      },
    };
  });
}

/** `signalforge delivery`: webhook and messenger delivery, deployments shared with the other copies by lease. */
export const startDeliveryRole = roleCommand('delivery', async (ctx) => {
  const parts = await buildDelivery(ctx);
  return {
    parts,
    checks: baseChecks(ctx.bus),
    running: { host: parts.delivery.hostId, deployments: parts.delivery.stats().deployments },
  };
});
