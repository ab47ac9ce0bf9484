/**
 * Blobs in an object store on a real nats-server: read back byte for byte whatever their size
 * (empty, one chunk, many), the newest version after a replace, null once deleted or never put,
 * without a consumer created on the server for the read, and refused when the stored chunks do
 * not match the digest the store recorded.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openBlobStore, type BlobStore } from '../../src/bus/index.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

const BUCKET = 'sf_test_blobs';
const STREAM = `OBJ_${BUCKET}`;

describe('blob store', () => {
  let nats: TestNats;
  let blobs: BlobStore;

  before(async () => {
    nats = await startNats('object-store');
    blobs = await openBlobStore(nats.bus, BUCKET);
  });
  after(() => nats.close());

  it('reads back empty, one-chunk and many-chunk blobs byte for byte, with no consumer made for the reads', async () => {
    // 128 KiB chunks by default: 300,000 bytes are three.
    const sizes = [0, 1, 1000, 128 * 1024, 300_000];
    const written = sizes.map((n) => new Uint8Array(randomBytes(n)));
    for (const [i, data] of written.entries()) await blobs.put(`models/${i}.onnx`, data);
    const seen: string[] = [];
    const spy = nats.bus.nc.subscribe('$JS.API.CONSUMER.>', { callback: (_e, msg) => void seen.push(msg.subject) });
    for (const [i, data] of written.entries()) {
      const read = await blobs.get(`models/${i}.onnx`);
      assert.ok(read, `blob ${i} found`);
      assert.equal(read.length, data.length);
      assert.ok(Buffer.from(read).equals(Buffer.from(data)), `blob ${i} (${data.length} bytes) reads back as written`);
    }
    await nats.bus.nc.flush();
    spy.unsubscribe();
    assert.deepEqual(seen, [], 'no consumer asked for');
    assert.equal((await nats.bus.jsm.streams.info(STREAM)).state.consumer_count, 0);
  });

  it('reads the newest version of a replaced blob; a deleted or never-written blob is null', async () => {
    await blobs.put('code/a.py', Buffer.from('first version, long enough to tell apart'));
    await blobs.put('code/a.py', Buffer.from('second'));
    assert.equal(Buffer.from((await blobs.get('code/a.py'))!).toString(), 'second');
    await blobs.delete('code/a.py');
    assert.equal(await blobs.get('code/a.py'), null);
    assert.equal(await blobs.get('code/never.py'), null);
  });

  it('refuses a blob whose stored chunks no longer match its digest', async () => {
    await blobs.put('models/tampered.onnx', new Uint8Array(randomBytes(5000)));
    // Rewrite its chunk behind the store's back: same subject, other bytes.
    const meta = Buffer.from('models/tampered.onnx').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    const info = await nats.bus.jsm.streams.getMessage(STREAM, { last_by_subj: `$O.${BUCKET}.M.${meta}` });
    assert.ok(info, 'the blob meta is where the store keeps it');
    const chunks = `$O.${BUCKET}.C.${(info.json() as { nuid: string }).nuid}`;
    await nats.bus.jsm.streams.purge(STREAM, { filter: chunks });
    await nats.bus.js.publish(chunks, new Uint8Array(randomBytes(5000)));
    await assert.rejects(blobs.get('models/tampered.onnx'), /corrupt/);
  });
});
