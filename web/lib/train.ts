/** POST /train, then GET /train/{id} each second until done: the trained model's stem. */
import { call } from './api.ts';

interface JobStatus {
  status: string;
  stage?: string | null;
  model_stem?: string | null;
  error?: string | null;
}

export async function trainAndWait(body: unknown, onStatus: (text: string) => void): Promise<string> {
  const job = await call<{ job_id: number }>('POST', '/api/v1/train', body);
  for (;;) {
    const s = await call<JobStatus>('GET', `/api/v1/train/${job.job_id}`);
    onStatus(`Job ${job.job_id}: ${s.status}${s.stage ? ` — ${s.stage}` : ''}`);
    if (s.status === 'failed') throw new Error(s.error ?? `job ${job.job_id} failed`);
    if (s.status === 'done' && s.model_stem) return s.model_stem;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
