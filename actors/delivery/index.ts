export { DeliveryActor, type DeliveryActorDeps, type DeliveryConfig, type DeliveryStats } from './delivery-actor.ts';
export { ChannelWorker, type ChannelWorkerDeps } from './channel-worker.ts';
export { ProgressJournal, type ProgressJournalDeps } from './progress-journal.ts';
export { WebhookSender, type WebhookSenderOptions } from './webhook-sender.ts';
export { TelegramBot, TelegramSender } from './telegram.ts';
export { ChatHookSender, type ChatHookSenderOptions } from './chat-hook-sender.ts';
export { PinnedPoster, answerError, type PostResult } from './http-post.ts';
export { ChatPacer, type PacerOptions } from './chat-pacer.ts';
export type { ChannelSender, SendOutcome } from './types.ts';
