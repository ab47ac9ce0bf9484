/** A JSON call to a service under benchmark; throws with the status and body on a non-2xx answer. */
export type ApiCall = (method: string, path: string, body?: unknown, key?: string) => Promise<any>;

export function apiCaller(baseUrl: string): ApiCall {
  return async (method, path, body, key) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { ...(key ? { 'x-api-key': key } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
}
