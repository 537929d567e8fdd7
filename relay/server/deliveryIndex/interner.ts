// Small string tables: each distinct string stored once, referred to by a dense numeric id.
import type { ImageReader, ImageWriter } from '../base/imageParts';
import { imageCheck } from '../base/imageParts';

export class Interner {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** The id of a known string, or -1. */
  find(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  name(id: number): string {
    return this.names[id]!;
  }

  /** The stored copy of `name` (so equal strings share one copy). */
  intern(name: string): string {
    return this.names[this.id(name)]!;
  }

  forEach(fn: (name: string, id: number) => void): void {
    this.names.forEach(fn);
  }

  /** Writes the strings, in id order (an index snapshot: ../base/imageParts.ts). */
  save(w: ImageWriter): void {
    w.json(this.names);
  }

  /** The table save() wrote. */
  static async load(r: ImageReader): Promise<Interner> {
    const names = await r.json<unknown>();
    imageCheck(Array.isArray(names) && names.every((n) => typeof n === 'string'), 'interned strings');
    const t = new Interner();
    for (const name of names) t.id(name);
    imageCheck(t.names.length === names.length, 'distinct interned strings');
    return t;
  }
}
