import { Page } from '../ui';

export function UsersPage(_: Record<string, string>) {
  return <Page title="UsersPage">{null}</Page>;
}
