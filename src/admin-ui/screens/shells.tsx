import { Page } from '../ui';

export function ShellsPage(_: Record<string, string>) {
  return <Page title="ShellsPage">{null}</Page>;
}
