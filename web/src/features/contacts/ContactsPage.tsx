import { Button, Group, Stack, Title } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import type { ContactListSummary } from '@wa/contract';
import { useState } from 'react';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { messageOf } from '../../lib/api.ts';
import { useDeleteContactList } from './api/delete-contact-list.ts';
import { useExportContactList } from './api/export-contact-list.ts';
import { useContactLists } from './api/get-contact-lists.ts';
import { ContactListsTable } from './ContactListsTable.tsx';
import { DeleteListModal } from './DeleteListModal.tsx';
import { ImportModal } from './ImportModal.tsx';
import { ListContacts } from './ListContacts.tsx';
import { OptOutsSection } from './OptOutsSection.tsx';
import { PersonalDataSection } from './PersonalDataSection.tsx';

/** Contacts (/contacts): contact lists, their contacts, import and export, and the opt-out list. */
export default function ContactsPage() {
  const lists = useContactLists();
  const [importing, setImporting] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ContactListSummary | null>(null);
  const remove = useDeleteContactList();
  const exporter = useExportContactList();
  const all = lists.data?.lists ?? [];
  const open = all.find((l) => l.id === openId) ?? null;

  const confirmDelete = () => {
    if (!deleting) return;
    remove.mutate(deleting.id, {
      onSuccess: () => {
        if (openId === deleting.id) setOpenId(null);
        setDeleting(null);
      },
    });
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Title order={1} size="h2">
          Contacts
        </Title>
        <Button leftSection={<IconUpload size={16} aria-hidden />} onClick={() => setImporting(true)}>
          Import contacts
        </Button>
      </Group>
      <ErrorAlert error={lists.isError ? messageOf(lists.error) : null} />
      <ErrorAlert error={exporter.isError ? messageOf(exporter.error) : null} />
      <ContactListsTable
        lists={all}
        loading={lists.isLoading}
        openId={openId}
        onOpen={(l) => setOpenId(l.id === openId ? null : l.id)}
        onExport={(l) => exporter.mutate({ id: l.id, name: l.name })}
        exportingId={exporter.isPending ? (exporter.variables?.id ?? null) : null}
        onDelete={(l) => {
          remove.reset();
          setDeleting(l);
        }}
      />
      {open && <ListContacts key={open.id} list={open} onClose={() => setOpenId(null)} />}
      <OptOutsSection />
      <PersonalDataSection />
      <ImportModal opened={importing} onClose={() => setImporting(false)} />
      <DeleteListModal
        list={deleting}
        onCancel={() => setDeleting(null)}
        onConfirm={confirmDelete}
        busy={remove.isPending}
        error={remove.isError ? messageOf(remove.error) : null}
      />
    </Stack>
  );
}
