import { Page } from '../ui';

export function TenantsPage(_: Record<string, string>) {
  return <Page title="TenantsPage">{null}</Page>;
}
