export { buildFeedHost, type FeedHost, type FeedHostDeps } from './feed-host.ts';
