import { Switch } from '@mantine/core';

/** The two flags an admin sets on a user, as Add User and Edit user show them. */
export function UserFlagSwitches(props: {
  bulk: boolean;
  onBulk: (on: boolean) => void;
  multi: boolean;
  onMulti: (on: boolean) => void;
}) {
  return (
    <>
      <Switch
        label="Bulk messaging enabled"
        checked={props.bulk}
        onChange={(e) => props.onBulk(e.currentTarget.checked)}
      />
      <Switch
        label="Multi-session supported"
        checked={props.multi}
        onChange={(e) => props.onMulti(e.currentTarget.checked)}
      />
    </>
  );
}
