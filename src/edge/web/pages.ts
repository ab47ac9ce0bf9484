/** The web app's public pages (the sitemap lists them; the model and account pages are per user). */
export const PUBLIC_PAGES: readonly string[] = ['/', '/quick-deploy', '/market', '/community', '/pulse'];
