// Is the message a follower handed over for a seq the one the stream's leader acknowledged at that
// seq? After servers of the cluster were killed (-9), nats-server 2.9's copies of the stream were
// seen holding different messages at the same seq (issue 21: "a replica answered seq N with another
// message"). The index is fed from a consumer, which reads its own server's copy: a copy that
// differs would put another delivery's row at the seq, and a subscriber would be sent that
// delivery for it. An instance knows, for what it published itself, which message the leader
// acknowledged at each seq (by its message id): this compares the two, in either order.

/** Bounds each map: a seq the follower never hands over (passed over) is forgotten in time. */
const KEEP = 4096;

export class CopyCheck<T> {
  /** This instance's publishes, acknowledged and not handed over yet: seq → message id and what was published. */
  private readonly acked = new Map<number, { id: string; published: T }>();
  /** The message ids of the seqs handed over lately. */
  private readonly followed = new Map<number, string>();
  /** Seqs whose indexed row may be another message's: read from the stream's leader only. */
  readonly suspect = new Set<number>();

  /**
   * The leader acknowledged message `id` at `seq`. False when the follower has already handed over
   * another message for `seq` (the row is another delivery's; the seq is now suspect).
   */
  acknowledged(seq: number, id: string, published: T): boolean {
    const seen = this.followed.get(seq);
    if (seen === undefined) {
      bounded(this.acked, seq, { id, published });
      return true;
    }
    if (seen === id) return true;
    bounded(this.suspect, seq);
    return false;
  }

  /**
   * The follower hands over message `id` at `seq`. Returns what this instance published at `seq`
   * when the leader acknowledged another message there (index that instead); else undefined.
   */
  handedOver(seq: number, id: string | undefined): T | undefined {
    if (id) bounded(this.followed, seq, id);
    const own = this.acked.get(seq);
    if (!own) return undefined;
    this.acked.delete(seq);
    if (own.id === id) return undefined;
    bounded(this.suspect, seq);
    return own.published;
  }
}

function bounded<K, V>(m: Map<K, V> | Set<K>, key: K, value?: V): void {
  if (m instanceof Map) m.set(key, value as V);
  else m.add(key);
  if (m.size > KEEP) {
    const oldest = m.keys().next().value as K;
    m.delete(oldest);
  }
}
