import { Page } from '../ui';

export function ShellPage(_: Record<string, string>) {
  return <Page title="ShellPage">{null}</Page>;
}
