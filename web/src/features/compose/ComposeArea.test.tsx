import { MantineProvider } from '@mantine/core';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useReducer, useState } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ComposeArea } from './ComposeArea.tsx';
import { composeReducer, emptyCompose } from './compose-form.ts';
import { allSelected, toggleAll, toggleOne } from './credit-limit.ts';
import { RecipientTable } from './RecipientTable.tsx';

afterEach(cleanup);

function ComposeHarness() {
  const [state, dispatch] = useReducer(composeReducer, undefined, () => emptyCompose('text'));
  const [message, setMessage] = useState('');
  return (
    <MantineProvider>
      <ComposeArea
        state={state}
        dispatch={dispatch}
        onKindChange={(kind) => {
          dispatch({ type: 'kind', kind });
          setMessage('');
        }}
        onFileError={setMessage}
      />
      <output aria-label="message">{message}</output>
    </MantineProvider>
  );
}

const tab = (name: string) => fireEvent.click(screen.getByRole('tab', { name }));

describe('ComposeArea', () => {
  it('clears what was typed when the type changes', () => {
    render(<ComposeHarness />);
    const text = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
    expect(text.rows).toBe(6);
    fireEvent.change(text, { target: { value: 'Hello' } });
    tab('Poll');
    fireEvent.change(screen.getByRole('textbox', { name: 'Poll question' }), { target: { value: 'Q?' } });
    tab('Text Message');
    expect((screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).value).toBe('');
    tab('Poll');
    expect((screen.getByRole('textbox', { name: 'Poll question' }) as HTMLInputElement).value).toBe('');
  });

  it('shows remove icons only above two options', () => {
    render(<ComposeHarness />);
    tab('Poll');
    expect(screen.getAllByRole('textbox', { name: /^Option \d$/ })).toHaveLength(2);
    expect(screen.queryAllByRole('button', { name: /^Remove option/ })).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: 'Add Option' }));
    expect(screen.getAllByRole('button', { name: /^Remove option/ })).toHaveLength(3);
    fireEvent.click(screen.getByRole('button', { name: 'Remove option 3' }));
    expect(screen.getAllByRole('textbox', { name: /^Option \d$/ })).toHaveLength(2);
    expect(screen.queryAllByRole('button', { name: /^Remove option/ })).toHaveLength(0);
  });

  it("disables 'Add Option' at 12 options", () => {
    render(<ComposeHarness />);
    tab('Poll');
    const add = screen.getByRole('button', { name: 'Add Option' });
    for (let i = 0; i < 10; i++) fireEvent.click(add);
    expect(screen.getAllByRole('textbox', { name: /^Option \d+$/ })).toHaveLength(12);
    expect((add as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Remove option 12' }));
    expect((add as HTMLButtonElement).disabled).toBe(false);
    // Twelve Mantine inputs re-render per click: seconds on a loaded machine.
  }, 30_000);

  it('refuses a file over 16 MB and shows a non-image with its size in KB', async () => {
    const { container } = render(<ComposeHarness />);
    tab('Media Message');
    expect(screen.getByText('No file selected')).toBeInTheDocument();
    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    const big = new File(['x'], 'movie.mp4', { type: 'video/mp4' });
    Object.defineProperty(big, 'size', { value: 16 * 1024 * 1024 + 1 });
    await act(async () => {
      fireEvent.change(input, { target: { files: [big] } });
    });
    expect(screen.getByRole('status', { name: 'message' }).textContent).toBe('File is too large (max 16 MB)');
    expect(screen.getByText('No file selected')).toBeInTheDocument();
    const pdf = new File([new Uint8Array(1536)], 'price-list.pdf', { type: 'application/pdf' });
    await act(async () => {
      fireEvent.change(input, { target: { files: [pdf] } });
    });
    expect(screen.getAllByText('price-list.pdf').length).toBeGreaterThan(0);
    expect(screen.getByText('1.50 KB')).toBeInTheDocument();
  });
});

function TableHarness({
  recipients,
  balance,
}: {
  recipients: { id: string; name: string }[];
  balance: number;
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const ids = recipients.map((r) => r.id);
  return (
    <MantineProvider>
      <RecipientTable
        title="Select Groups"
        nameHeader="Group Name"
        kind="groups"
        ids={ids}
        names={recipients.map((r) => r.name)}
        selection={{
          size: selected.size,
          has: (i) => selected.has(ids[i]!),
          everything: allSelected(selected, ids),
          toggle: (i) => setSelected(toggleOne(selected, ids[i]!, balance)),
          toggleAll: (checked) => setSelected(toggleAll(selected, ids, balance, checked)),
        }}
        balance={balance}
        loading={false}
        loadingText="Loading groups..."
        emptyText="No groups found"
      />
    </MantineProvider>
  );
}

const groups = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `g${i}`, name: `Group ${i + 1}` }));

describe('RecipientTable', () => {
  // jsdom lays nothing out: give every element the size of the table's scroll box.
  const saved = ['clientHeight', 'clientWidth'].map(
    (k) => [k, Object.getOwnPropertyDescriptor(HTMLElement.prototype, k)] as const,
  );
  beforeAll(() => {
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 440 });
    Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 800 });
  });
  afterAll(() => {
    for (const [k, d] of saved) if (d) Object.defineProperty(HTMLElement.prototype, k, d);
  });

  it('says when there is nothing to list', () => {
    render(<TableHarness recipients={[]} balance={5} />);
    expect(screen.getByText('No groups found')).toBeInTheDocument();
  });

  it('stops at the balance and disables the other rows', () => {
    render(<TableHarness recipients={groups(4)} balance={2} />);
    expect(
      screen.getByText('Your groups count is greater than credit limit. So Select All is disabled'),
    ).toBeInTheDocument();
    expect((screen.getByRole('checkbox', { name: 'Select All' }) as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Group 1' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select Group 2' }));
    expect(screen.getByText('2 of 4 selected')).toBeInTheDocument();
    expect(screen.getByText('You have reached the credit limit')).toBeInTheDocument();
    expect((screen.getByRole('checkbox', { name: 'Select Group 3' }) as HTMLInputElement).disabled).toBe(
      true,
    );
  });

  it('renders only part of a 5,000-row list and selects all of it at once', () => {
    render(<TableHarness recipients={groups(5000)} balance={5000} />);
    const rendered = screen.getAllByRole('checkbox').length;
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(100);
    expect(screen.getByRole('checkbox', { name: 'Select Group 1' })).toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: 'Select Group 5000' })).toBeNull();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select All' }));
    expect(screen.getByText('5,000 of 5,000 selected')).toBeInTheDocument();
    expect((screen.getByRole('checkbox', { name: 'Select All' }) as HTMLInputElement).checked).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select All' }));
    expect(screen.getByText('0 of 5,000 selected')).toBeInTheDocument();
  });
});
