import fs from 'node:fs';

/**
 * The TCP ports process `pid` listens on, in any of its threads (Linux: its socket inodes in /proc/<pid>/fd,
 * matched against the listening sockets of its network namespace in /proc/<pid>/net/tcp and tcp6).
 */
export function tcpListenPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const LISTEN = '0A';
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const path = `/proc/${pid}/net/${table}`;
    if (!fs.existsSync(path)) continue; // no IPv6
    for (const line of fs.readFileSync(path, 'utf8').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === LISTEN && inodes.has(inode)) ports.push(Number.parseInt(local.split(':').pop()!, 16));
    }
  }
  return ports.sort((a, b) => a - b);
}
