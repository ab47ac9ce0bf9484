export { Trainer, MAX_ATTEMPTS, type TrainerDeps } from './trainer.ts';
