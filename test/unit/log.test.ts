// The logger never throws and never loses a line, whatever it is given.
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createLogger, safeValue } from '../../src/log.js';

function capture() {
  const lines: string[] = [];
  return { log: createLogger('debug', { logger: 't' }, (l) => lines.push(l)), lines };
}

describe('logger', () => {
  it('an ApiException keeps its code and the API server Status body (parsed)', () => {
    const { log, lines } = capture();
    const err = new ApiException(
      422,
      'HTTP-Code: 422',
      JSON.stringify({ kind: 'Status', message: 'Deployment.apps "gloo" is invalid', reason: 'Invalid' }),
      {},
    );
    log.error('apply failed', { err });
    const rec = JSON.parse(lines[0]!) as {
      err: { code: number; body: { message: string }; message: string };
    };
    expect(rec.err.code).toBe(422);
    expect(rec.err.body.message).toBe('Deployment.apps "gloo" is invalid');
  });

  it('circular structures, BigInt, functions, symbols, Maps and causes are logged, not thrown on', () => {
    const { log, lines } = capture();
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const err = new Error('outer', { cause: new Error('inner') });
    expect(() =>
      log.info('odd', {
        a,
        n: 10n ** 20n,
        f: function named() {},
        s: Symbol('x'),
        m: new Map([['k', 1]]),
        err,
        nan: NaN,
      }),
    ).not.toThrow();
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(rec).toMatchObject({
      msg: 'odd',
      logger: 't',
      a: { name: 'a', self: '[Circular]' },
      n: '100000000000000000000',
      f: '[Function named]',
      s: 'Symbol(x)',
      m: { k: 1 },
      err: { message: 'outer', cause: { message: 'inner' } },
      nan: 'NaN',
    });
  });

  it('a getter that throws and a writer that throws do not escape', () => {
    const evil = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(safeValue(evil)).toEqual({ x: '[getter threw: no]' });
    const log = createLogger('info', {}, () => {
      throw new Error('stderr closed');
    });
    expect(() => log.error('x')).not.toThrow();
  });

  it('the same object twice (not a cycle) is logged twice', () => {
    const shared = { v: 1 };
    expect(safeValue({ a: shared, b: shared })).toEqual({ a: { v: 1 }, b: { v: 1 } });
  });
});
