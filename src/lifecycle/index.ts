/** The process's life: readiness of its dependencies, steps under deadlines, a bounded shutdown. */
export { DeadlineError, withDeadline } from './deadline.ts';
export { probeReadiness, processRuns, startingReadiness, type DependencyCheck } from './readiness.ts';
export { ShutdownStack, type ShutdownStep } from './shutdown.ts';
