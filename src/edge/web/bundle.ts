/**
 * Builds the web app's browser bundle (web/ → build/web/assets/) with esbuild: minified, file
 * names carrying a content hash (so they can be cached for a year), each with a .gz and .br copy
 * served as-is to browsers that accept them. build/web/manifest.json maps an entry's name to its
 * hashed file. Run by the install step (deploy/ensure-deps.sh); the service rebuilds at start only
 * when the sources are newer than the manifest (a developer's edit).
 *   node --import tsx src/edge/web/bundle.ts
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const WEB_SOURCES = join(ROOT, 'web');
export const WEB_BUILD = join(ROOT, 'build', 'web');

/** Entry name → source file. */
const ENTRIES = { app: 'app.ts', pulse: 'pulse.ts', styles: 'styles.css' } as const;
export type EntryName = keyof typeof ENTRIES;
/** Entry name → hashed file name under /assets/. */
export type Manifest = Record<EntryName, string>;

const manifestPath = (dir: string) => join(dir, 'manifest.json');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when there is no build, or a source file changed after it. */
export function bundleIsStale(sources = WEB_SOURCES, out = WEB_BUILD): boolean {
  const manifest = manifestPath(out);
  return !existsSync(manifest) || statSync(manifest).mtimeMs < newestMtime(sources);
}

export async function buildBundle(sources = WEB_SOURCES, out = WEB_BUILD): Promise<Manifest> {
  const assets = join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(sources, file)])),
    outdir: assets,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome100', 'firefox100', 'safari15'],
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const manifest = {} as Manifest;
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const name = Object.entries(ENTRIES).find(([, file]) => meta.entryPoint?.endsWith(`web/${file}`))?.[0] as EntryName | undefined;
    if (name) manifest[name] = basename(output);
    const body = readFileSync(resolve(ROOT, output));
    writeFileSync(`${resolve(ROOT, output)}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(`${resolve(ROOT, output)}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
  // Files of earlier builds go: the service serves exactly this build's files.
  const kept = new Set(Object.keys(result.metafile.outputs).flatMap((o) => [basename(o), `${basename(o)}.gz`, `${basename(o)}.br`]));
  for (const file of readdirSync(assets)) if (!kept.has(file)) rmSync(join(assets, file), { force: true });
  // Written whole then renamed: a service starting meanwhile never reads half a manifest.
  const tmp = `${manifestPath(out)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(manifest, null, 2));
  renameSync(tmp, manifestPath(out));
  return manifest;
}

/** The current build's manifest, building first when there is none or the sources are newer. */
export async function ensureBundle(sources = WEB_SOURCES, out = WEB_BUILD): Promise<{ manifest: Manifest; assetsDir: string }> {
  const manifest = bundleIsStale(sources, out)
    ? await buildBundle(sources, out)
    : (JSON.parse(readFileSync(manifestPath(out), 'utf8')) as Manifest);
  return { manifest, assetsDir: join(out, 'assets') };
}

/** Removes the build (tests that check a fresh build). */
export const removeBundle = (out = WEB_BUILD) => rmSync(out, { recursive: true, force: true });

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const manifest = await buildBundle();
  process.stdout.write(`web bundle: ${Object.values(manifest).join(', ')}\n`);
}
