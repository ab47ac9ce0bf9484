import type { FastifyRequest } from 'fastify';
import type { RelyingParty } from '../accounts/index.ts';

/**
 * The WebAuthn relying party a request speaks to. With PUBLIC_URL set, that URL's host is the RP
 * ID and its origin the only origin passkeys are accepted from — set it in production, so the Host
 * header never decides. Without it, the request's own host and scheme (X-Forwarded-Host/-Proto
 * only behind TRUST_PROXY, as everywhere else): the origin the browser reports must then be the
 * page's own, and each passkey is also bound to the RP ID it was registered under.
 */
export function relyingParty(request: FastifyRequest, publicUrl: string | undefined): RelyingParty {
  if (publicUrl) {
    const url = new URL(publicUrl);
    return { id: url.hostname, origin: url.origin };
  }
  return { id: request.hostname, origin: `${request.protocol}://${request.host}` };
}
