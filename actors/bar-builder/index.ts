export { BarBuilder, type BarBuilderDeps } from './bar-builder.ts';
