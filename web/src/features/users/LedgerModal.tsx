import { Badge, Table } from '@mantine/core';
import type { LedgerEntry, ManagedUser } from '@wa/contract';
import { AppModal } from '../../components/AppModal.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { ListTable, RowCard } from '../../components/ListTable.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { useLedger } from './api/get-ledger.ts';

const COLUMNS = [
  { header: 'Date' },
  { header: 'Reason' },
  { header: 'Change', align: 'right' as const },
  { header: 'Balance', align: 'right' as const },
  { header: 'Note' },
];

const REASON_LABEL: Record<LedgerEntry['reason'], string> = {
  grant: 'Granted',
  adjust: 'Adjusted',
  send: 'Sent',
  refund: 'Refund',
  retry: 'Retry',
};

/** A user's credit changes, newest first. */
export function LedgerModal(props: { user: ManagedUser | null; onClose: () => void }) {
  const ledger = useLedger(props.user?.id ?? null);
  const entries = ledger.data?.entries ?? [];
  return (
    <AppModal
      opened={!!props.user}
      onClose={props.onClose}
      title={props.user ? `Credit ledger of ${props.user.username}` : 'Credit ledger'}
      size="xl"
    >
      <ErrorAlert error={ledger.error?.message} />
      <ListTable
        bare
        label="Credit ledger"
        columns={COLUMNS}
        rows={entries}
        rowKey={(e) => e.id}
        loading={ledger.isLoading}
        loadingLabel="Loading ledger"
        empty="No credit changes yet."
        minWidth={640}
        cells={(e) => (
          <>
            <Table.Td>{formatDateTime(e.createdAt)}</Table.Td>
            <Table.Td>
              <Badge variant="light" color={e.delta >= 0 ? 'green' : 'red'}>
                {REASON_LABEL[e.reason] ?? e.reason}
              </Badge>
            </Table.Td>
            <Table.Td ta="right" c={e.delta >= 0 ? 'green' : 'red'}>
              {e.delta > 0 ? '+' : ''}
              {formatNumber(e.delta)}
            </Table.Td>
            <Table.Td ta="right">{formatNumber(e.balanceAfter)}</Table.Td>
            <Table.Td>{e.note ?? (e.jobId ? `Job ${e.jobId}` : '')}</Table.Td>
          </>
        )}
        card={(e) => (
          <RowCard
            title={`${e.delta > 0 ? '+' : ''}${formatNumber(e.delta)} · ${REASON_LABEL[e.reason] ?? e.reason}`}
            fields={[
              { label: 'When', value: formatDateTime(e.createdAt) },
              { label: 'Balance after', value: formatNumber(e.balanceAfter) },
              ...(e.note || e.jobId ? [{ label: 'Note', value: e.note ?? `Job ${e.jobId}` }] : []),
            ]}
          />
        )}
      />
    </AppModal>
  );
}
