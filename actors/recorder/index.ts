export { SignalRecorder, type SignalRecorderDeps } from './signal-recorder.ts';
