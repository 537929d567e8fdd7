// The delivery engine's guard against link-local, unspecified and metadata addresses
// (src/core/net/address.ts): webhook URLs naming such an IP are refused by the API, and a host
// name is checked after it resolves, before the engine connects (a name can point anywhere).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { forbiddenAddress } from '../../src/core/net/address';

type BaseLookup = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** The error of a refused target; its code shows in the attempt's error. */
export function refusedTarget(why: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`refused: ${why}; deliveries never go there`), { code: 'EREFUSEDTARGET' });
}

/** A `lookup` for net.connect that fails when any address of the name is forbidden. */
export function guardedLookup(base: BaseLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = forbiddenAddress(a.address);
        if (why) return callback(refusedTarget(`${hostname} resolves to ${why}`), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
