// What rows mostly repeat, once: a shape is a channel identity, an event, a target list and a
// verification (by their ids), and a row holds its shape's id (two bytes) instead of the four.
const SMALL = 0x10000;

export class Shapes {
  private readonly ids = new Map<number | string, number>();
  readonly channel: number[] = [];
  readonly event: number[] = [];
  readonly targets: number[] = [];
  readonly verification: number[] = [];

  id(channel: number, event: number, targets: number, verification: number): number {
    const key =
      channel < SMALL && event < SMALL && targets < SMALL
        ? ((channel * SMALL + event) * SMALL + targets) * 4 + verification
        : `${channel},${event},${targets},${verification}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.channel.length;
      this.ids.set(key, id);
      this.channel.push(channel);
      this.event.push(event);
      this.targets.push(targets);
      this.verification.push(verification);
    }
    return id;
  }
}
