import { Page } from '../ui';

export function FilesPage(_: Record<string, string>) {
  return <Page title="FilesPage">{null}</Page>;
}
