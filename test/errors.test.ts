import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as errors from '../src/errors.ts';
import { AppError, ERROR_CODES, errorBody, type ErrorCode } from '../src/errors.ts';

/** The one table of error codes, and the error classes: one class per code, no class outside it. */

type ErrorClass = new (...args: never[]) => AppError;

/** Every error class src/errors.ts exports, with a sample instance. */
function exportedClasses(): Array<[name: string, instance: AppError]> {
  const out: Array<[string, AppError]> = [];
  for (const [name, value] of Object.entries(errors)) {
    if (typeof value !== 'function' || !(value.prototype instanceof Error || value === AppError)) continue;
    const Class = value as unknown as ErrorClass & { length: number };
    // Constructors take (message), (message, violations|retryAfter) or (needed, balance).
    const instance = name === 'OutOfCreditsError' ? new (Class as any)(3, 1) : new (Class as any)('sample message', 1);
    out.push([name, instance]);
  }
  return out;
}

describe('the error table', () => {
  const classes = exportedClasses();

  it('finds the classes', () => {
    assert.ok(classes.length >= 25, `classes: ${classes.map(([n]) => n).join(', ')}`);
  });

  it('gives every error class a code of the table, and its status from the table', () => {
    for (const [name, error] of classes) {
      const entry = ERROR_CODES[error.errorCode];
      assert.ok(entry, `${name}: ${error.errorCode} is in the table`);
      assert.equal(error.status, entry.status, name);
      assert.ok(error instanceof AppError, name);
    }
  });

  it('has exactly one class per code (the base class stands for SF_INTERNAL with InternalError)', () => {
    const byCode = new Map<ErrorCode, string[]>();
    for (const [name, error] of classes) byCode.set(error.errorCode, [...(byCode.get(error.errorCode) ?? []), name]);
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const names = (byCode.get(code) ?? []).filter((n) => n !== 'AppError');
      assert.equal(names.length, 1, `${code}: ${names.join(', ') || 'no class'}`);
    }
  });

  it('uses SF_ names, error statuses and a meaning for every code', () => {
    for (const [code, { status, meaning }] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^SF_[A-Z_]+$/);
      assert.ok(status >= 400 && status <= 599, code);
      assert.ok(meaning.length > 10, code);
    }
  });

  it('narrows: a specific class is still caught as its family', () => {
    assert.ok(new errors.ModelNotFoundError('x') instanceof errors.NotFoundError);
    assert.ok(new errors.UnknownFieldError('x') instanceof errors.BadRequestError);
    assert.ok(new errors.DailyCapError('x', 5) instanceof errors.RateLimitedError);
    assert.ok(new errors.ForeignOriginError('x') instanceof errors.ForbiddenError);
  });

  it('builds the body: error, code = status, error_code, details beside them but never over them', () => {
    const rejected = new errors.StrategyRejectedError('refused', [{ line: 1 }]);
    assert.deepEqual(errorBody(rejected), { violations: [{ line: 1 }], error: 'refused', code: 400, error_code: 'SF_STRATEGY_REJECTED' });
    const sneaky = new errors.ConflictError('taken');
    sneaky.details = { code: 200, error_code: 'SF_OK', error: 'fine' };
    assert.deepEqual(errorBody(sneaky), { error: 'taken', code: 409, error_code: 'SF_CONFLICT' });
    const limited = new errors.MintLimitedError('slow down', 12.2);
    assert.equal(limited.headers['retry-after'], '13');
  });
});
