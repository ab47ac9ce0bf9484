/**
 * messageHeaders: the same headers, on the wire and read back, as the client's own `headers()` with
 * `set`, the same refusals (a value with CR or LF, a name with a character a header cannot have),
 * and none at all without an id or a header.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headers } from '@nats-io/transport-node';
import { messageHeaders } from '../../src/bus/publish-stored.ts';

const wire = (h: unknown) => new TextDecoder().decode((h as { encode(): Uint8Array }).encode());

describe('messageHeaders', () => {
  it('encodes and reads as the client’s own headers set one by one', () => {
    const ours = messageHeaders('note-1', { 'Nats-Expected-Last-Subject-Sequence': '42', 'Nats-Msg-Id': 'note-2' })!;
    const theirs = headers();
    theirs.set('Nats-Msg-Id', 'note-1');
    theirs.set('Nats-Expected-Last-Subject-Sequence', '42');
    theirs.set('Nats-Msg-Id', 'note-2');
    assert.equal(wire(ours), wire(theirs));
    assert.equal(ours.get('Nats-Msg-Id'), 'note-2');
    assert.equal(ours.get('Nats-Expected-Last-Subject-Sequence'), '42');
    assert.equal(
      wire(messageHeaders(undefined, { 'Nats-Expected-Last-Subject-Sequence': ' 7 ' })),
      'NATS/1.0\r\nNats-Expected-Last-Subject-Sequence: 7\r\n\r\n',
    );
  });

  it('refuses what the client refuses, and is nothing without an id or a header', () => {
    assert.throws(() => messageHeaders('id\r\nInjected: 1'), /cannot contain/);
    assert.throws(() => messageHeaders(undefined, { 'Bad:Name': '1' }), /not a valid character/);
    assert.equal(messageHeaders(), undefined);
  });
});
