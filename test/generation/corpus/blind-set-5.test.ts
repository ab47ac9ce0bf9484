/**
 * The fifth blind set (issue 35). Its first, blind run scored 0.9117 over 90 prompts and 706
 * checks (goal 0.95); its misses then guided a round of fixes, so it is held at that first run as a
 * floor and is no longer blind.
 */
import { BLIND_SET_5 } from './blind-set-5.ts';
import { blindSetTest } from './blind-run.ts';

blindSetTest('blind set 5', BLIND_SET_5, 0.911, 80);
