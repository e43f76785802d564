import { Page } from '../ui';

export function AasxImportPage(_: Record<string, string>) {
  return <Page title="AasxImportPage">{null}</Page>;
}
