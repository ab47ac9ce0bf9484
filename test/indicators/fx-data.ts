/** Real 1-minute EURUSD bars (HistData, bid prices) for the parity and warm-up tests. */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Ohlc } from '../../src/indicators/index.ts';

export const FX_FILE = '../shared/data/fx/histdata_m1/normalized/histdata_EURUSD_m1_2017-01_2017-09.csv.gz';

/** The first `rows` bars of the file (header ts_utc,bid_open,bid_high,bid_low,bid_close). */
export function loadFxBars(rows: number): Ohlc {
  const lines = gunzipSync(readFileSync(FX_FILE)).toString('utf8').split('\n');
  const header = lines[0]!.trim().split(',');
  const at = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${FX_FILE}: no column ${name} in ${header.join(',')}`);
    return i;
  };
  const idx = { open: at('bid_open'), high: at('bid_high'), low: at('bid_low'), close: at('bid_close') };
  const ohlc: Ohlc = {
    open: new Float64Array(rows),
    high: new Float64Array(rows),
    low: new Float64Array(rows),
    close: new Float64Array(rows),
  };
  for (let r = 0; r < rows; r++) {
    const line = lines[r + 1];
    if (!line) throw new Error(`${FX_FILE}: only ${r} bars`);
    const f = line.split(',');
    for (const key of ['open', 'high', 'low', 'close'] as const) ohlc[key][r] = Number(f[idx[key]]);
  }
  return ohlc;
}
