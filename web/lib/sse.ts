/**
 * Reads a Server-Sent Events response from fetch (EventSource can neither POST nor send the
 * X-API-Key header): calls `onEvent` per frame until the stream ends or `signal` aborts.
 */
export interface SseFrame {
  event: string;
  data: unknown;
  id?: string;
}

export async function readSse(response: Response, onEvent: (frame: SseFrame) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: SseFrame = { event: 'message', data: null };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const field = line.slice(0, colon);
        const text = line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') frame.event = text;
        else if (field === 'data') data.push(text);
        else if (field === 'id') frame.id = text;
      }
      if (!data.length) continue;
      try {
        frame.data = JSON.parse(data.join('\n'));
      } catch {
        frame.data = data.join('\n');
      }
      onEvent(frame);
    }
  }
}
