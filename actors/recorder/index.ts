export { SignalRecorder, type SignalRecorderDeps } from './signal-recorder.ts';
export { UsageRecorder, type UsageRecorderDeps } from './usage-recorder.ts';
