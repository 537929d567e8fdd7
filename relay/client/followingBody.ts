// A large body that comes as raw binary messages after its delivery message (`bodies=binary`,
// DeliveryMessage.bodyFollows): each message's bytes are copied into one buffer of the body's
// size as they arrive, so the subscriber holds the body once and a part at a time, never the
// body's base64 in frames beside it (issue 24: `forward` held 2.8–3.6× a 25 MB body that way).
import type { DeliveryMessage, ServerMessage } from '../../src/core/relay/protocol';
import { bodyBytesPassed, takingBody } from '../shared/largeBodyGc';
import { attachBody } from './serverMessage';

/** The largest body a relay may announce (as ws's maxPayload for one message on this side). */
export const MAX_FOLLOWING_BODY = 256 * 1024 * 1024;

type WithBody = Extract<ServerMessage, { type: 'delivery' | 'replay' }>;

/** A delivery or replay message whose body follows; undefined for any other message. */
export function bodyToFollow(msg: ServerMessage): WithBody | undefined {
  return (msg.type === 'delivery' || msg.type === 'replay') && msg.delivery?.bodyFollows !== undefined ? msg : undefined;
}

export class FollowingBody {
  private readonly body: Buffer;
  private got = 0;

  /** Throws when the announced length is not a byte count this side accepts. */
  constructor(readonly msg: WithBody) {
    const size = msg.delivery.bodyFollows;
    if (!Number.isSafeInteger(size) || size! < 0 || size! > MAX_FOLLOWING_BODY)
      throw new Error(`delivery ${msg.delivery.seq}: the relay announced a body of ${String(size)} bytes (at most ${MAX_FOLLOWING_BODY})`);
    takingBody(size!);
    this.body = Buffer.allocUnsafe(size!);
  }

  /** All of the body has come (at once for an empty one). */
  get whole(): boolean {
    return this.got === this.body.length;
  }

  /** Copies one binary message's frames in; throws when more bytes come than were announced. */
  add(frames: readonly Buffer[]): void {
    for (const f of frames) {
      if (this.got + f.length > this.body.length)
        throw new Error(`delivery ${this.msg.delivery.seq}: the relay sent more than the ${this.body.length} body bytes it announced`);
      f.copy(this.body, this.got);
      this.got += f.length;
      bodyBytesPassed(this.body.length, f.length);
    }
  }

  /** The message with its body attached (read with deliveryBody); call once whole. */
  done(): WithBody {
    const d: DeliveryMessage['delivery'] = this.msg.delivery;
    delete d.bodyFollows;
    attachBody(d, this.body);
    return this.msg;
  }
}
