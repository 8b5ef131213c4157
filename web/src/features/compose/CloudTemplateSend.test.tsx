import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

const api = vi.hoisted(() => ({ sendMessage: vi.fn() }));
vi.mock('./api/send-message.ts', () => ({ sendMessage: api.sendMessage }));
vi.mock('./api/cost-estimate.ts', () => ({ useCostEstimate: () => ({ data: undefined }) }));
vi.mock('./api/credit-prices.ts', () => ({ useCreditPrices: () => ({ linked: 1, cloud: 2 }) }));
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
vi.mock('./api/templates.ts', async () => {
  const { buildTemplate } = await import('../../testing/factories.ts');
  return { useTemplates: () => ({ isLoading: false, data: { templates: [buildTemplate()] } }) };
});

import { CloudTemplateSend } from './CloudTemplateSend.tsx';
import type { PreviewRecipient } from './PersonalisedPreview.tsx';

afterEach(cleanup);

function renderSend(withPhones: boolean, recipients: PreviewRecipient[] = []) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MantineProvider>
        <CloudTemplateSend
          accountId="919800015838_cl"
          selectedCount={3}
          charge={{
            recipients: 3,
            balance: 20,
            shares: withPhones
              ? [
                  { kind: 'cloud', price: 2, recipients: null },
                  { kind: 'linked', price: 1, recipients: null },
                ]
              : [{ kind: 'cloud', price: 2, recipients: 3 }],
          }}
          accountIds={withPhones ? ['919800015838_cl', '919700000001_ph'] : undefined}
          withPhones={withPhones}
          target={() => ({ chatIds: ['919811300001', '919811300002', '919811300003'] })}
          recipients={recipients}
          onSent={() => {}}
        />
      </MantineProvider>
    </QueryClientProvider>,
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
    // The confirmation first, with the server's split priced per kind and Meta's charge; nothing sent yet.
    const dialog = await screen.findByRole('dialog', { name: 'Send template order_update' });
    expect(within(dialog).getByText('3 recipients · 5 credits · balance after 15')).toBeInTheDocument();
    expect(within(dialog).getByText('Linked phone: 1 × 1 credit = 1 credit')).toBeInTheDocument();
    expect(within(dialog).getByText('Cloud API account: 2 × 2 credits = 4 credits')).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Meta's charge")).toHaveTextContent(
      "Meta's estimated charge: ≈ ₹0.23",
    );
    expect(api.sendMessage).not.toHaveBeenCalled();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send template to 3' }));
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

  it('refuses an empty value, and one empty for a recipient of the preview, before any confirmation', async () => {
    api.sendMessage.mockClear();
    renderSend(false, [
      { phoneNumber: '919811300001', fields: { name: 'Asha' } },
      { phoneNumber: '919811300002', fields: { name: '' } },
    ]);
    await chooseTemplate();
    const value = screen.getByRole('textbox', { name: '{{1}}' });
    fireEvent.change(value, { target: { value: ' ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send template to 3' }));
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Template order_update: {{1}} has no value; give every variable a value',
    );
    fireEvent.change(value, { target: { value: '{{name}}' } });
    // Each recipient's filled template, the empty one marked.
    const preview = screen.getByRole('table', { name: 'Preview per recipient' });
    expect(within(preview).getByText('Your order Asha has shipped.')).toBeInTheDocument();
    expect(within(preview).getByText('Your order ⚠ empty has shipped.')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Send template to 3' }));
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Template order_update: {{1}} would be empty for 919811300002; give the field a value or a fallback, such as {{name|Customer}}',
    );
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.sendMessage).not.toHaveBeenCalled();
  });

  it('leaves the choice out with no phone sharing the send', async () => {
    renderSend(false);
    await chooseTemplate();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.queryByRole('status', { name: 'Split of the send' })).toBeNull();
  });
});
