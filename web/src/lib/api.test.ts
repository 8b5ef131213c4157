import { describe, expect, it } from 'vitest';
import { ApiError, errorText } from './api.ts';

describe('errorText', () => {
  it('shows the server message, else the fallback, else the reason', () => {
    expect(
      errorText(new ApiError(402, 'x', 'Your Credit Balance is lower than the message count'), 'F', 'E'),
    ).toBe('Your Credit Balance is lower than the message count');
    expect(errorText(new ApiError(500, 'HTTP error! status: 500', null), 'Failed to send message', 'E')).toBe(
      'Failed to send message',
    );
    expect(errorText(new TypeError('Failed to fetch'), 'F', 'Error sending message')).toBe(
      'Error sending message: Failed to fetch',
    );
  });
});
