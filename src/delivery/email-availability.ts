import type { Config } from '../config.ts';

/** Why the email channel is unavailable on a server without an SMTP server to send through. */
export const EMAIL_OFF =
  'the email channel is unavailable on this server: no SMTP server is configured (the operator sets SMTP_URL, e.g. smtps://user:password@smtp.example.com:465)';

/** Whether this server can send e-mail, and why not (said wherever channels are listed). */
export function emailAvailability(config: Partial<Pick<Config, 'SMTP_URL'>>): { available: boolean; reason: string | null } {
  return config.SMTP_URL ? { available: true, reason: null } : { available: false, reason: EMAIL_OFF };
}
