import { Page } from '../ui';

export function ServiceAccountsPage(_: Record<string, string>) {
  return <Page title="ServiceAccountsPage">{null}</Page>;
}
