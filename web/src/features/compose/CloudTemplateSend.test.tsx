import { MantineProvider } from '@mantine/core';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

const api = vi.hoisted(() => ({ sendMessage: vi.fn() }));
vi.mock('./api/send-message.ts', () => ({ sendMessage: api.sendMessage }));
vi.mock('./api/cost-estimate.ts', () => ({ useCostEstimate: () => ({ data: undefined }) }));
const estimate = vi.hoisted(() => ({ body: vi.fn() }));
vi.mock('./api/send-estimate.ts', () => ({
  useSendEstimate: (_s: string, _k: unknown[], body: (() => unknown) | null) => {
    if (!body) return { data: undefined };
    estimate.body(body());
    return {
      data: { success: true, recipients: 3, viaPhones: 1, viaCloud: 2, credits: 5, metaCostUnits: 2300 },
    };
  },
}));
vi.mock('./api/templates.ts', () => ({
  useTemplates: () => ({
    isLoading: false,
    data: {
      templates: [
        {
          name: 'order_update',
          language: 'en_US',
          category: 'UTILITY',
          status: 'APPROVED',
          parameterCount: 1,
          bodyText: 'Your order {{1}} has shipped.',
        },
      ],
    },
  }),
}));

import { CloudTemplateSend } from './CloudTemplateSend.tsx';

afterEach(cleanup);

function renderSend(withPhones: boolean) {
  render(
    <MantineProvider>
      <CloudTemplateSend
        sessionId="919800015838_cl"
        selectedCount={3}
        balance={20}
        credits={{ min: 3, max: 6 }}
        sessionIds={withPhones ? ['919800015838_cl', '919700000001_ph'] : undefined}
        withPhones={withPhones}
        target={() => ({ chatIds: ['919811300001', '919811300002', '919811300003'] })}
        recipients={[]}
        onSent={() => {}}
      />
    </MantineProvider>,
  );
}

async function chooseTemplate() {
  fireEvent.click(screen.getByRole('combobox', { name: 'Template' }));
  fireEvent.click(await screen.findByRole('option', { name: 'order_update (en_US, utility)' }));
  fireEvent.change(screen.getByRole('textbox', { name: '{{1}}' }), { target: { value: 'A-7' } });
}

describe('Bulk Messaging through a Cloud API account with linked phones beside it', () => {
  it('sends cold numbers through Cloud by default, and shows the split and the credits of the answer', async () => {
    api.sendMessage.mockResolvedValueOnce({
      success: true,
      message: 'Message sending initiated for 3 contacts',
      totalChats: 3,
      jobId: 'job-1',
      creditsCharged: 5,
      split: { viaPhones: 1, viaCloud: 2 },
    });
    renderSend(true);
    await chooseTemplate();
    expect(screen.getByText('3 recipients · 3–6 credits · balance after 14–17')).toBeInTheDocument();
    // Before sending: the split the server would make, its credits and Meta's charge.
    expect(screen.getByRole('status', { name: 'Split of the send' })).toHaveTextContent(
      "1 through the phones, 2 through the Cloud API · 5 credits · ≈ ₹0.23 at Meta's rate",
    );
    expect(estimate.body).toHaveBeenLastCalledWith(expect.objectContaining({ coldToCloud: true }));
    const cold = screen.getByRole('checkbox', {
      name: /Numbers the phones have chatted with go through the phones/,
    });
    expect(cold).toBeChecked();
    fireEvent.click(screen.getByRole('button', { name: 'Send template to 3' }));
    await waitFor(() => expect(api.sendMessage).toHaveBeenCalledTimes(1));
    expect(api.sendMessage.mock.calls[0]![2]).toMatchObject({
      sessionIds: ['919800015838_cl', '919700000001_ph'],
      coldToCloud: true,
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
    });
    expect(
      await screen.findByText(
        'Message sending initiated for 3 contacts (job job-1) · 1 through the phones, 2 through the Cloud API · 5 credits',
      ),
    ).toBeInTheDocument();
  });

  it('leaves the choice out with no phone sharing the send', async () => {
    renderSend(false);
    await chooseTemplate();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.queryByRole('status', { name: 'Split of the send' })).toBeNull();
  });
});
