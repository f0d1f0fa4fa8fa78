/**
 * The error catalogue's errors: a caller's error (4xx) carries its code, status and message but
 * no stack frames (it is an answer, not a fault); a server error (5xx) keeps its stack, and the
 * process-wide stack limit is left as it was either way.
 */
import t from 'tap';
import { ErrorCodes, WebperfError } from '../../core/errors.js';

t.test('a 4xx error has no stack frames, a 5xx error has them', async (t) => {
  const limit = Error.stackTraceLimit;
  const refused = new WebperfError('QUOTA_EXCEEDED', 'The order needs 15 credits; 7 remain', { needed: 15, available: 7 });
  t.strictSame(
    [refused.code, refused.status, refused.message, refused.details, refused.stack],
    ['QUOTA_EXCEEDED', 400, 'The order needs 15 credits; 7 remain', { needed: 15, available: 7 }, 'WebperfError: The order needs 15 credits; 7 remain'],
  );
  t.equal(new WebperfError('KEY_INVALID').stack, `WebperfError: ${ErrorCodes.KEY_INVALID.message}`);
  const fault = new WebperfError('DB_UNAVAILABLE');
  t.equal(fault.status, 503);
  const frames = fault.stack!.split('\n').slice(1);
  t.ok(frames.length > 0 && frames.every((line) => line.trimStart().startsWith('at ')), 'a server error keeps its frames');
  t.match(frames[0], /errors\.test\.ts/, 'starting where it was raised');
  t.equal(Error.stackTraceLimit, limit, 'the stack limit is restored');
  t.ok(new Error('plain').stack!.split('\n').length > 1, 'other errors keep their stacks');
});
