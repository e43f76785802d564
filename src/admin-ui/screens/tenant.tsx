import { Page } from '../ui';

export function TenantPage(_: Record<string, string>) {
  return <Page title="TenantPage">{null}</Page>;
}
