import { SEND_TEXTS } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import {
  buildSendBody,
  composeReducer,
  emptyCompose,
  summaryText,
  truncate,
  validateScheduleTime,
  validateSend,
} from './compose-form.ts';

const file = new File(['abc'], 'photo.png', { type: 'image/png' });

describe('composeReducer', () => {
  it('clears text, file, caption and poll entries when the type changes', () => {
    let s = emptyCompose('text');
    s = composeReducer(s, { type: 'text', value: 'hello' });
    s = composeReducer(s, { type: 'kind', kind: 'media' });
    expect(s).toEqual(emptyCompose('media'));
    s = composeReducer(s, { type: 'file', file });
    s = composeReducer(s, { type: 'caption', value: 'cap' });
    s = composeReducer(s, { type: 'kind', kind: 'poll' });
    expect(s).toEqual(emptyCompose('poll'));
    s = composeReducer(s, { type: 'pollQuestion', value: 'Q' });
    s = composeReducer(s, { type: 'addPollOption' });
    s = composeReducer(s, { type: 'kind', kind: 'text' });
    expect(s).toEqual(emptyCompose('text'));
  });
  it('starts polls with two options, adds up to 12 and removes only above two', () => {
    let s = emptyCompose('poll');
    expect(s.pollOptions).toEqual(['', '']);
    s = composeReducer(s, { type: 'removePollOption', index: 0 });
    expect(s.pollOptions).toHaveLength(2);
    for (let i = 0; i < 5; i++) s = composeReducer(s, { type: 'addPollOption' });
    expect(s.pollOptions).toHaveLength(7);
    s = composeReducer(s, { type: 'pollOption', index: 2, value: 'C' });
    s = composeReducer(s, { type: 'removePollOption', index: 1 });
    expect(s.pollOptions).toEqual(['', 'C', '', '', '', '']);
    for (let i = 0; i < 10; i++) s = composeReducer(s, { type: 'addPollOption' });
    expect(s.pollOptions).toHaveLength(12);
  });
  it('reset keeps the chosen type', () => {
    const s = composeReducer({ ...emptyCompose('poll'), pollQuestion: 'Q' }, { type: 'reset' });
    expect(s).toEqual(emptyCompose('poll'));
  });
});

describe('validateSend', () => {
  it('checks recipients first', () => {
    expect(validateSend(emptyCompose('text'), 0)).toBe(SEND_TEXTS.noRecipients);
  });
  it('checks the content of the chosen type', () => {
    expect(validateSend({ ...emptyCompose('text'), text: '   ' }, 1)).toBe('Please enter a message');
    expect(validateSend({ ...emptyCompose('text'), text: 'hi' }, 1)).toBeNull();
    expect(validateSend(emptyCompose('media'), 1)).toBe('Please select a file to send');
    expect(validateSend({ ...emptyCompose('media'), file }, 1)).toBeNull();
    expect(validateSend({ ...emptyCompose('poll'), pollQuestion: ' ' }, 1)).toBe(
      'Please enter a poll question',
    );
    expect(validateSend({ ...emptyCompose('poll'), pollQuestion: 'Q', pollOptions: ['A', ' '] }, 1)).toBe(
      'Please add at least two poll options',
    );
    expect(
      validateSend({ ...emptyCompose('poll'), pollQuestion: 'Q', pollOptions: ['A', '', 'B'] }, 1),
    ).toBeNull();
  });
  it('then the poll limits of docs/decisions.md (Polls), with its texts', () => {
    const poll = (pollQuestion: string, pollOptions: string[]) => ({
      ...emptyCompose('poll'),
      pollQuestion,
      pollOptions,
    });
    const twelve = Array.from({ length: 12 }, (_, i) => `Option ${i + 1}`);
    expect(validateSend(poll('Q', [...twelve, 'Option 13']), 1)).toBe('A poll can have at most 12 options');
    expect(validateSend(poll('Q', ['Yes', 'No', ' YES  ']), 1)).toBe('Poll options must be different');
    expect(validateSend(poll('q'.repeat(256), ['Yes', 'No']), 1)).toBe('Poll question is too long');
    expect(validateSend(poll('Q', ['Yes', 'n'.repeat(101)]), 1)).toBe('Poll option is too long');
    expect(
      validateSend(poll(' '.repeat(3) + 'q'.repeat(255), [...twelve.slice(1), 'o'.repeat(100)]), 1),
    ).toBeNull();
  });
});

describe('validateScheduleTime', () => {
  const now = new Date(2026, 10, 22, 10, 30, 15);
  it('needs a time', () => {
    expect(validateScheduleTime('', now)).toBe('Please select a schedule time');
  });
  it('needs a valid time strictly later than now', () => {
    expect(validateScheduleTime('2026-11-22T10:30', now)).toBe('Please select a valid future date and time');
    expect(validateScheduleTime('2026-11-22T09:00', now)).toBe('Please select a valid future date and time');
    expect(validateScheduleTime('not a date', now)).toBe('Please select a valid future date and time');
    expect(validateScheduleTime('2026-11-22T10:31', now)).toBeNull();
  });
});

describe('buildSendBody', () => {
  const media = { mime: 'image/png', data: 'YWJj', fileName: 'photo.png' };
  it('sends groups a type for every kind', () => {
    expect(buildSendBody({ ...emptyCompose('text'), text: 'hi' }, ['g1@g.us'], 'groups', null)).toEqual({
      chatIds: ['g1@g.us'],
      type: 'string',
      content: 'hi',
    });
    expect(
      buildSendBody(
        { ...emptyCompose('media'), file, caption: 'c' },
        ['g1'],
        'groups',
        media,
        '2026-01-01T00:00:00.000Z',
      ),
    ).toEqual({
      chatIds: ['g1'],
      type: 'media',
      content: 'c',
      mime: 'image/png',
      data: 'YWJj',
      fileName: 'photo.png',
      scheduleTime: '2026-01-01T00:00:00.000Z',
    });
  });
  it('sets a type for individuals only on polls, dropping blank options', () => {
    expect(
      buildSendBody({ ...emptyCompose('text'), text: 'hi' }, ['919800000001'], 'individuals', null),
    ).toEqual({
      chatIds: ['919800000001'],
      content: 'hi',
    });
    expect(
      buildSendBody({ ...emptyCompose('media'), file }, ['919800000001'], 'individuals', media).type,
    ).toBeUndefined();
    expect(
      buildSendBody(
        {
          ...emptyCompose('poll'),
          pollQuestion: ' Lunch? ',
          pollOptions: ['Yes', ' ', ' No '],
          allowMultipleAnswers: true,
        },
        ['919800000001'],
        'individuals',
        null,
      ),
    ).toEqual({
      chatIds: ['919800000001'],
      type: 'poll',
      content: { pollName: 'Lunch?', pollOptions: ['Yes', 'No'], options: { allowMultipleAnswers: true } },
    });
  });
});

describe('schedule summary', () => {
  it('cuts at 50 characters with an ellipsis', () => {
    expect(truncate('a'.repeat(50))).toBe('a'.repeat(50));
    expect(truncate('a'.repeat(51))).toBe(`${'a'.repeat(50)}...`);
  });
  it('quotes the message, caption or poll question', () => {
    expect(summaryText({ ...emptyCompose('text'), text: 'Hello' })).toBe('Hello');
    expect(summaryText({ ...emptyCompose('media'), caption: 'Cap' })).toBe('Cap');
    expect(summaryText({ ...emptyCompose('poll'), pollQuestion: 'Q?' })).toBe('Q?');
  });
});
