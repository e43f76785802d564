import { Page } from '../ui';

export function GroupsPage(_: Record<string, string>) {
  return <Page title="GroupsPage">{null}</Page>;
}
export function GroupPage(_: Record<string, string>) {
  return <Page title="GroupPage">{null}</Page>;
}
