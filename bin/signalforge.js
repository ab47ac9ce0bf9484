#!/usr/bin/env -S node --max-semi-space-size=64 --min-semi-space-size=64 --no-memory-reducer
// The `signalforge` command: runs the TypeScript sources through tsx, no build step. The V8 flags
// (as in `npm start` and the image): a 64 MB young generation that does not shrink between bars,
// and no memory reducer compacting the heap while idle; see OPERATIONS.md "Node flags".
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
