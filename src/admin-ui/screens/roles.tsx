import { Page } from '../ui';

export function RolesPage(_: Record<string, string>) {
  return <Page title="RolesPage">{null}</Page>;
}
