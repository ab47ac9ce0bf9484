/**
 * The third blind set (issue 35). Its first run, the honest measure, scored 0.942 against the
 * issue's goal of 0.95 (bench generator-intent reports the score and the goal); its misses then
 * guided a round of fixes, so it is tuning data now, held at its first run as a floor.
 */
import { BLIND_SET_3 } from './blind-set-3.ts';
import { blindSetTest } from './blind-run.ts';

blindSetTest('blind set 3', BLIND_SET_3, 0.942, 70);
