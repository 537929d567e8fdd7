// The signing secrets the editor holds for the relay in use: its forward set-ups' channels', the
// relay started here (generated once, in SecretStorage), and the one Add Webhook gives a webhook so
// that its deliveries verify at the relay (a new channel created with it, when the token may).
import { newSecret } from '../../core/randomToken';
import type * as vscode from 'vscode';
import { settings } from '../config';
import { UserError } from '../errors';
import { RELAY_STORAGE } from '../ids';
import { localBase, type RelayInUse } from './inUse';
import type { ForwardSetups } from './setups';

/** A secret the editor holds, with what it verifies (Explain Signature, Send Sample Event pick one). */
export interface HeldSecret {
  channel: string;
  label: string;
  description?: string;
  secret: string;
}

/** The secret Add Webhook gives a webhook, and how it came about. */
export interface GeneratedSecret {
  secret: string;
  how: 'plain' | 'channel' | 'relay' | 'created';
  channel?: string;
}

export class RelaySecrets {
  constructor(
    private readonly relay: RelayInUse,
    private readonly setups: ForwardSetups,
    private readonly secrets: vscode.SecretStorage,
    /** The channel of the relay in use that an ingress URL delivers to (RelayManager.channelOf). */
    private readonly channelOf: (url: string) => string | undefined,
  ) {}

  /** The signing secret the editor holds for the relay ingress `url`: its set-up channel's own, or (for the relay started here) the relay's; else undefined. */
  async heldSecretFor(url: string): Promise<string | undefined> {
    const channel = this.channelOf(url);
    if (channel === undefined) return undefined;
    const own = await this.ownSecret(this.relay.base, channel);
    return own ?? (this.relay.ownsProcess && !this.relay.remote ? this.localSecret() : undefined);
  }

  /** A rotated secret for `url`'s channel, kept where its forward set-up keeps it (Copy Signing Secret gives it); false: no set-up here keeps one. */
  async replaceHeld(url: string, secret: string): Promise<boolean> {
    const channel = this.channelOf(url);
    const base = this.relay.base;
    if (channel === undefined || base === undefined || !(await this.ownSecret(base, channel))) return false;
    await this.setups.storeSecret(base, channel, secret);
    return true;
  }

  /** The secret the editor made `channel` of the relay at `base` with (a forward set-up, Add Webhook), if any: the one place it is looked up. */
  private async ownSecret(base: string | undefined, channel: string): Promise<string | undefined> {
    return base === undefined ? undefined : this.setups.secret(base, channel);
  }

  /**
   * The secret a webhook to `url` gets when Add Webhook generates one, so that its deliveries
   * verify at the relay: `generated` itself when `url` is no channel of the relay in use; the
   * channel's own secret when the editor made it (a forward set-up, an earlier Add Webhook); the
   * relay's own secret for a channel of the relay started here; with the admin token, a new
   * channel created with `generated`. Anything else is a UserError that says what to do instead.
   */
  async secretForGenerated(url: string, generated: string): Promise<GeneratedSecret> {
    const plan = await this.planGenerated(url);
    if ('problem' in plan) throw new UserError(plan.problem);
    if (plan.how === 'plain') return { secret: generated, how: 'plain' };
    if (plan.how === 'channel') return { secret: plan.secret, how: 'channel', channel: plan.channel };
    if (plan.how === 'relay') return { secret: await this.localSecret(), how: 'relay', channel: plan.channel };
    await this.relay.conn!.api.createChannel({ name: plan.channel, secrets: [generated] });
    await this.setups.storeSecret(plan.base, plan.channel, generated);
    void this.relay.conn!.reload().catch(() => undefined);
    return { secret: generated, how: 'created', channel: plan.channel };
  }

  /**
   * Why a generated secret cannot verify where `url` delivers (a channel token's channel, a channel
   * with secrets the editor does not hold), or undefined when it can: Add Webhook asks this before
   * its secret step, so "Generate a strong secret" is not offered to fail after every step.
   */
  async generateProblem(url: string): Promise<string | undefined> {
    const plan = await this.planGenerated(url);
    return 'problem' in plan ? plan.problem : undefined;
  }

  /** What secretForGenerated does for `url`, decided without doing it. */
  private async planGenerated(
    url: string,
  ): Promise<
    | { how: 'plain' }
    | { how: 'channel'; secret: string; channel: string }
    | { how: 'relay'; channel: string }
    | { how: 'create'; channel: string; base: string }
    | { problem: string }
  > {
    const base = this.relay.base ?? localBase(settings().relayPort);
    const channel = this.channelOf(url);
    if (channel === undefined) return { how: 'plain' };
    const own = this.relay.conn ? await this.ownSecret(base, channel) : undefined;
    if (own) return { how: 'channel', secret: own, channel };
    if (!this.relay.conn) return { how: 'plain' }; // no relay here to check against
    const scope = this.relay.scope;
    const known = scope?.kind === 'admin' ? await this.relay.conn.api.listChannels() : [];
    const listed = known.find((c) => c.name === channel);
    if (this.relay.ownsProcess && listed?.source !== 'api' && listed?.source !== 'config') return { how: 'relay', channel };
    if (scope?.kind !== 'admin')
      return {
        problem: `A channel token cannot add a secret to channel ${channel}: enter the channel's own secret (ask whoever created the channel) instead of generating one.`,
      };
    if (listed && listed.source !== 'implicit')
      return {
        problem: `Channel ${channel} on ${this.relay.remote?.label ?? `port ${this.relay.localPort}`} verifies with secrets the editor does not hold (${listed.source === 'default' ? "the relay's --secret" : `its ${listed.source} secrets`}): enter that secret, or use a new channel's URL (…/hooks/<new name>), which gets the generated secret.`,
      };
    return { how: 'create', channel, base };
  }

  /** The signing secrets the editor holds for the relay in use: its set-ups' channels, the relay started here. */
  async signingSecrets(): Promise<HeldSecret[]> {
    const base = this.relay.base;
    const out: HeldSecret[] = [];
    if (base) {
      for (const f of this.setups.of(base)) {
        const secret = await this.ownSecret(base, f.channel);
        if (secret) out.push({ channel: f.channel, label: `channel ${f.channel}`, description: `${f.repo || 'set-up'} → ${f.to}`, secret });
      }
    }
    if (this.relay.ownsProcess)
      out.push({
        channel: 'default',
        label: `the relay on port ${this.relay.localPort ?? '?'}`,
        description: 'its own secret (every channel without one)',
        secret: await this.localSecret(),
      });
    return out;
  }

  /** The secret the local relay verifies with, shared with Add Webhook (SecretStorage; generated once). */
  async localSecret(): Promise<string> {
    const stored = await this.secrets.get(RELAY_STORAGE.localSecret);
    if (stored) return stored;
    const secret = newSecret();
    await this.secrets.store(RELAY_STORAGE.localSecret, secret);
    return secret;
  }
}
