export { SignalRecorder } from './signal-recorder.ts';
