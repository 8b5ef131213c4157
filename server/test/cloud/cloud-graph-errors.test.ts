import { describe, expect, it } from 'vitest';
import { classifyGraphCode, graphErrorFromResponse } from '../../src/transport/cloud/graph-errors.ts';

describe("Meta's errors as one domain error", () => {
  it.each([
    [131049, 'retryAfter24h'],
    [130429, 'backoff'],
    [131056, 'backoff'],
    [131057, 'backoff'],
    [1, 'backoff'],
    [2, 'backoff'],
    [131000, 'backoff'],
    [131026, 'final'],
    [131047, 'final'],
    [100, 'final'],
    [132000, 'final'],
    [132001, 'final'],
    [131048, 'final'],
    [190, 'auth'],
    [102, 'auth'],
    [200, 'auth'],
  ] as const)('code %i is %s', (code, errorClass) => {
    expect(classifyGraphCode(code)).toBe(errorClass);
  });

  it("reads Graph's envelope: the title without its (#code) prefix, details, trace id", () => {
    const error = graphErrorFromResponse(
      400,
      JSON.stringify({
        error: {
          message: '(#131026) Message undeliverable',
          type: 'OAuthException',
          code: 131026,
          error_data: { messaging_product: 'whatsapp', details: 'Unable to deliver message.' },
          fbtrace_id: 'Az8or2yhqkZfEZ-_4Qn_Bam',
        },
      }),
    );
    expect(error).toMatchObject({
      code: 131026,
      title: 'Message undeliverable',
      details: 'Unable to deliver message.',
      traceId: 'Az8or2yhqkZfEZ-_4Qn_Bam',
      errorClass: 'final',
      httpStatus: 400,
      message: 'Message undeliverable: Unable to deliver message.',
    });
  });

  it('prefers error_user_title when Meta sends one', () => {
    const error = graphErrorFromResponse(
      400,
      JSON.stringify({
        error: { message: 'Invalid parameter', code: 100, error_user_title: 'Template missing' },
      }),
    );
    expect(error.title).toBe('Template missing');
  });

  it("a body that is not Graph's is temporary on 5xx and 429, final otherwise", () => {
    expect(graphErrorFromResponse(502, '<html>Bad gateway</html>')).toMatchObject({
      code: 0,
      errorClass: 'backoff',
      title: 'Graph API answered HTTP 502',
      details: '<html>Bad gateway</html>',
    });
    expect(graphErrorFromResponse(429, '').errorClass).toBe('backoff');
    expect(graphErrorFromResponse(404, 'Not Found').errorClass).toBe('final');
  });
});
