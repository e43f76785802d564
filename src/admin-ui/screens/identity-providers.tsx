import { Page } from '../ui';

export function IdentityProvidersPage(_: Record<string, string>) {
  return <Page title="IdentityProvidersPage">{null}</Page>;
}
