// Small string tables: each distinct string stored once, referred to by a dense numeric id.
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
}
