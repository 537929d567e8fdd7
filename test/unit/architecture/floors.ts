// Rooms are floors (STYLE.md, docs/architecture.md "Floors"): a folder is a room, and a room imports
// only rooms on floors below its own. Two rooms on one floor never import each other, so no room
// imports a sibling that imports it back. The table below is the one place that says who stands
// on whom; ./architecture.test.ts checks every import of src/ and relay/ against it.
//
// Adding a room: give its folder a row. A file's room is the longest row its path starts with, so
// a sub-folder without a row (src/core/lint/checks) is part of its parent's room, and a row may
// name a single file (a file waiting for its room, or a top file that sits below its folder's
// rooms). Every folder directly under a HOUSES folder must have a row of its own.

/** Folders whose sub-folders are each a room, so that each needs a row. */
export const HOUSES: readonly string[] = ['src', 'src/core', 'relay', 'relay/server'];

/** Room → floor. Higher floors import lower ones, never the other way, never their own floor. */
export const ROOMS: Readonly<Record<string, number>> = {
  // src/core: pure TypeScript under both halves.
  'src/core': 1, // its top files: signing, defaults, time, randomToken, doctor, testSend, …
  'src/core/client': 1, // the service client, over net
  'src/core/net': 0, // addresses, webhook URLs, Retry-After: under the client and the relay
  'src/core/text': 0,
  'src/core/events': 2,
  'src/core/relay': 2, // the relay's wire types and rules, which both halves import
  'src/core/curl': 2,
  'src/core/input': 2,
  'src/core/issues': 2,
  'src/core/lint': 2, // with lint/checks, one room
  'src/core/tree': 3,
  'src/core/runner': 3,
  'src/core/agentTools': 3,
  'src/core/git': 4,

  // relay/: the command and all it runs. shared/ sits under the client and the server.
  'relay/shared': 10, // HTTP vocabulary, the forward attempt, probes, outages, redaction, body bytes
  'relay/web': 10, // the page's browser code
  'relay/client': 11,
  'relay/emulator': 11, // with emulator/handlers, one room

  // relay/server, bottom up: base/ under the storage rooms; journal/ the file log, deliveryIndex/
  // over it, store/ composing log and index; nats/ a whole backend over store/; the HTTP rooms on top.
  'relay/server/base': 20, // errors, the log seam, the RelayStore seam types, bytes, crc32, channel keys, what is kept of a 401
  'relay/server/journal': 21,
  'relay/server/channels': 21,
  'relay/server/deliveryIndex': 22,
  'relay/server/access': 22,
  'relay/server/forwarding': 22,
  'relay/server/store': 23,
  'relay/server/metrics': 23,
  'relay/server/api': 23,
  'relay/server/ingress': 23,
  'relay/server/nats': 24,
  'relay/server/subscribers': 24,
  'relay/server/page': 24,
  'relay/server': 25, // its top files: createRelay (index.ts), lifecycle, storeBackends, dataLock, tls, public

  'relay/cli': 30, // the commands' helpers: args, io, forward*, relayTarget, publicOptions
  'relay/lint': 31,
  'relay/commands': 32,
  relay: 33, // cli.ts and commandTable.ts: the dispatcher

  // src/extension: thin VS Code adapters over src/core and relay/client. One room for now: its top
  // files and its folders (agentTools, commands, relay, trust) still import each other both ways
  // while they are sorted into rooms by journey (issue 37 item 4); each new room gets a row here
  // and 'src/extension' joins HOUSES.
  'src/extension': 50,
  src: 60, // extension.ts
};

/** Only these paths (and what lies under them) may import 'vscode' (STYLE.md habit 1). */
export const VSCODE_ONLY_UNDER: readonly string[] = ['src/extension.ts', 'src/extension'];

/** The room of a path relative to the root ('/' separators): the longest row it starts with. */
export function roomOf(path: string, rooms: Readonly<Record<string, number>> = ROOMS): string | undefined {
  let best: string | undefined;
  for (const room of Object.keys(rooms)) {
    if (path === room || path.startsWith(`${room}/`)) if (best === undefined || room.length > best.length) best = room;
  }
  return best;
}

export interface Breach {
  file: string;
  imports: string;
  why: string;
}

/** Every import (paths relative to the root) that goes to the same floor or up. */
export function floorBreaches(edges: Iterable<[string, string]>, rooms: Readonly<Record<string, number>> = ROOMS): Breach[] {
  const found: Breach[] = [];
  for (const [file, target] of edges) {
    const from = roomOf(file, rooms);
    const to = roomOf(target, rooms);
    if (from === undefined || to === undefined || from === to) continue;
    const [a, b] = [rooms[from], rooms[to]];
    if (a > b) continue;
    const where = a === b ? 'on its own floor' : 'above it';
    found.push({ file, imports: target, why: `${from} (floor ${a}) imports ${to} (floor ${b}), a room ${where}` });
  }
  return found;
}

/** Folders that hold sources but no row: a HOUSES sub-folder, or a file outside every row. */
export function unplaced(paths: readonly string[], houses: readonly string[] = HOUSES, rooms: Readonly<Record<string, number>> = ROOMS): string[] {
  const missing = new Set<string>();
  for (const path of paths) {
    if (roomOf(path, rooms) === undefined) missing.add(path);
    for (const house of houses) {
      if (!path.startsWith(`${house}/`)) continue;
      const rest = path.slice(house.length + 1).split('/');
      if (rest.length < 2) continue;
      const room = `${house}/${rest[0]}`;
      if (!(room in rooms) && !houses.includes(room)) missing.add(room);
    }
  }
  return [...missing].sort();
}
