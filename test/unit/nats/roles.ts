// Which nats-server of a cluster plays which part, for the fail-over tests: the meta leader, a
// stream's leader and a consumer's leader as the servers' monitoring endpoint (/jsz) reports them,
// and the server a given process (a relay) holds its client connection to, found from the process's
// sockets (/proc/<pid>/fd and /proc/net/tcp, Linux) and each server's /connz.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { NatsCluster, NatsNode } from './natsServers';

interface Jsz {
  meta_cluster?: { leader?: string };
  account_details?: {
    stream_detail?: { name: string; cluster?: { leader?: string }; consumer_detail?: { name: string; cluster?: { leader?: string } }[] }[];
  }[];
}

async function jsz(node: NatsNode): Promise<Jsz | undefined> {
  if (!node.process || node.monitorPort === undefined) return undefined;
  try {
    const res = await fetch(`http://127.0.0.1:${node.monitorPort}/jsz?streams=true&consumers=true`, { signal: AbortSignal.timeout(2000) });
    return (await res.json()) as Jsz;
  } catch {
    return undefined;
  }
}

/** The first leader name `pick` finds in a live server's /jsz, as that server's node. */
async function leaderBy(nats: NatsCluster, pick: (j: Jsz) => string | undefined): Promise<NatsNode | undefined> {
  for (const n of nats.nodes) {
    const j = await jsz(n);
    const name = j && pick(j);
    if (name) return nats.nodes.find((x) => x.name === name);
  }
  return undefined;
}

const streams = (j: Jsz) => (j.account_details ?? []).flatMap((a) => a.stream_detail ?? []);

export const metaLeader = (nats: NatsCluster) => leaderBy(nats, (j) => j.meta_cluster?.leader);

export const streamLeader = (nats: NatsCluster, stream: string) => leaderBy(nats, (j) => streams(j).find((s) => s.name === stream)?.cluster?.leader);

/** The leader of the first consumer of `stream` whose name starts with `prefix`. */
export const consumerLeader = (nats: NatsCluster, stream: string, prefix: string) =>
  leaderBy(
    nats,
    (j) =>
      streams(j)
        .find((s) => s.name === stream)
        ?.consumer_detail?.find((c) => c.name.startsWith(prefix))?.cluster?.leader,
  );

/** The local TCP ports of the sockets process `pid` holds (Linux). */
function localPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length > 9 && inodes.has(f[9]!)) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
  }
  return ports;
}

/** The server process `pid` is connected to as a client (by /connz's client ports). */
export async function serverOf(nats: NatsCluster, pid: number): Promise<NatsNode | undefined> {
  const mine = localPorts(pid);
  for (const n of nats.nodes) {
    if (!n.process || n.monitorPort === undefined) continue;
    try {
      const res = await fetch(`http://127.0.0.1:${n.monitorPort}/connz`, { signal: AbortSignal.timeout(2000) });
      const c = (await res.json()) as { connections?: { port: number }[] };
      if (c.connections?.some((x) => mine.has(x.port))) return n;
    } catch {
      // not answering: not this one
    }
  }
  return undefined;
}
