import { randomInt } from 'node:crypto';

const ADJECTIVES = [
  'swift', 'calm', 'bold', 'brisk', 'lucky', 'quiet', 'sharp', 'steady', 'clever', 'daring',
  'eager', 'gentle', 'golden', 'hidden', 'humble', 'keen', 'lively', 'mellow', 'nimble', 'noble',
  'patient', 'proud', 'rapid', 'silver', 'sly', 'solid', 'sunny', 'tidy', 'witty', 'zesty',
  'amber', 'arctic', 'cosmic', 'crimson', 'dusty', 'electric', 'frosty', 'jade', 'lunar', 'misty',
];
const NOUNS = [
  'falcon', 'otter', 'badger', 'heron', 'lynx', 'panda', 'raven', 'tiger', 'wolf', 'fox',
  'bison', 'condor', 'dolphin', 'eagle', 'gecko', 'hawk', 'ibis', 'jaguar', 'koala', 'lemur',
  'marten', 'newt', 'orca', 'puma', 'quail', 'robin', 'shark', 'tapir', 'viper', 'walrus',
  'comet', 'delta', 'ember', 'glacier', 'harbor', 'meteor', 'nebula', 'pulsar', 'summit', 'tide',
];

/** An auto handle of the form adjective-noun-NN (40 × 40 × 100 = 160,000 of them). */
export function randomHandle(): string {
  const nn = String(randomInt(0, 100)).padStart(2, '0');
  return `${ADJECTIVES[randomInt(0, ADJECTIVES.length)]}-${NOUNS[randomInt(0, NOUNS.length)]}-${nn}`;
}
