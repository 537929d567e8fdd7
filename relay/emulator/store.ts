// The emulator's in-memory state: repositories (issues, CI secret names), webhooks and their
// deliveries, with projections to the API records. The store owns every mutation and reports each
// one to `persist` (the state file writer, persist.ts); route handlers never edit the data.
import { isoSecond } from '../../src/core/time';
import type {
  DeliveryDetail,
  DeliveryRecord,
  IssueRecord,
  RepoData,
  StateFile,
  EmulatedDelivery,
  StoredSecret,
  StoredWebhook,
  WebhookFields,
  WebhookPatch,
  WebhookRecord,
} from './types';

/** Deliveries kept per webhook (oldest dropped first; a delivery with a pending retry is kept). */
export const MAX_DELIVERIES_PER_WEBHOOK = 500;

export function emptyState(): StateFile {
  return { version: 1, next_webhook_id: 1, repos: {}, webhooks: [], deliveries: {} };
}

export { isoSecond };

export function toWebhookRecord(w: StoredWebhook): WebhookRecord {
  return {
    id: w.id,
    url: w.url,
    content_type: w.content_type,
    events: [...w.events],
    secret_set: typeof w.secret === 'string' && w.secret.length > 0,
    created_at: w.created_at,
  };
}

export function toDeliveryRecord(d: EmulatedDelivery): DeliveryRecord {
  const r: DeliveryRecord = {
    id: d.id,
    webhook_id: d.webhook_id,
    event: d.event,
    delivered_at: d.delivered_at,
    success: d.success,
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a })),
    next_attempt_at: d.next_attempt_at,
    redelivery: d.redelivery,
  };
  if (d.error !== undefined) r.error = d.error;
  return r;
}

export function toDeliveryDetail(d: EmulatedDelivery): DeliveryDetail {
  return { ...toDeliveryRecord(d), request: { headers: { ...d.request.headers }, body: d.request.body } };
}

export interface StoreOptions {
  maxDeliveries?: number;
  /** Told after every mutation (the state file writer coalesces these). */
  persist?: () => void;
}

export class EmulatorStore {
  private readonly maxDeliveries: number;
  private readonly persist: () => void;
  /** Serialised issues per repository, dropped when they change. */
  private readonly issuesJson = new Map<string, string>();

  constructor(
    private readonly data: StateFile = emptyState(),
    options: StoreOptions = {},
  ) {
    this.maxDeliveries = Math.max(1, options.maxDeliveries ?? MAX_DELIVERIES_PER_WEBHOOK);
    this.persist = options.persist ?? (() => {});
  }

  /**
   * The whole state as the state file holds it. Each repository's issues are serialised once per
   * import and reused: a write after a delivery attempt does not re-serialise 300,000 issues.
   */
  snapshot(): string {
    const repos = Object.entries(this.data.repos).map(([key, r]) => {
      let issues = this.issuesJson.get(key);
      if (issues === undefined) this.issuesJson.set(key, (issues = JSON.stringify(r.issues)));
      return `${JSON.stringify(key)}:{"issues":${issues},"secrets":${JSON.stringify(r.secrets)}}`;
    });
    const { repos: _repos, ...rest } = this.data;
    return `${JSON.stringify(rest).slice(0, -1)},"repos":{${repos.join(',')}}}`;
  }

  isEmpty(): boolean {
    return this.data.webhooks.length === 0 && Object.keys(this.data.repos).length === 0;
  }

  /** Makes the repository exist (any <org>/<repo> exists on first use). */
  ensureRepo(key: string): RepoData {
    let r = this.data.repos[key];
    if (!r) {
      r = { issues: [], secrets: [] };
      this.data.repos[key] = r;
      this.persist();
    }
    return r;
  }

  /** Imported issues, by number. */
  issuesOf(repo: string): readonly IssueRecord[] {
    return this.data.repos[repo]?.issues ?? [];
  }

  /** CI secrets (names and flags; values are never kept). */
  secretsOf(repo: string): readonly StoredSecret[] {
    return this.data.repos[repo]?.secrets ?? [];
  }

  webhooksOf(repo: string): StoredWebhook[] {
    return this.data.webhooks.filter((w) => w.repo === repo);
  }

  webhook(id: string): StoredWebhook | undefined {
    return this.data.webhooks.find((w) => w.id === id);
  }

  addWebhook(repo: string, fields: WebhookFields, now: Date): StoredWebhook {
    this.ensureRepo(repo);
    const w: StoredWebhook = {
      id: String(this.data.next_webhook_id++),
      repo,
      url: fields.url,
      content_type: 'json',
      events: [...fields.events],
      created_at: isoSecond(now),
      ...(fields.secret ? { secret: fields.secret } : {}),
    };
    this.data.webhooks.push(w);
    this.data.deliveries[w.id] = [];
    this.persist();
    return w;
  }

  /** Applies a PATCH; undefined when the webhook does not exist (any more). */
  updateWebhook(id: string, patch: WebhookPatch): StoredWebhook | undefined {
    const w = this.webhook(id);
    if (!w) return undefined;
    if (patch.url !== undefined) w.url = patch.url;
    if (patch.events !== undefined) w.events = [...patch.events];
    if (patch.secret !== undefined) w.secret = patch.secret;
    if (patch.clearSecret) delete w.secret;
    this.persist();
    return w;
  }

  /** Removes the webhook and its deliveries; returns the removed deliveries. */
  deleteWebhook(id: string): EmulatedDelivery[] {
    this.data.webhooks = this.data.webhooks.filter((w) => w.id !== id);
    const gone = this.data.deliveries[id] ?? [];
    delete this.data.deliveries[id];
    this.persist();
    return gone;
  }

  /**
   * Imports issues; a number imported before is replaced. The stored list is kept in number order,
   * so an import is a merge of two sorted lists: linear in the stored issues (plus sorting the
   * import), where a look-up per imported issue was quadratic (100,000 into 200,000 blocked 43 s).
   */
  importIssues(repoKey: string, issues: readonly IssueRecord[]): { replaced: number } {
    const repo = this.ensureRepo(repoKey);
    const merged = mergeByNumber(
      repo.issues,
      [...issues].sort((a, b) => a.number - b.number),
    );
    repo.issues = merged.issues;
    this.issuesJson.delete(repoKey);
    this.persist();
    return { replaced: merged.replaced };
  }

  /** Creates or replaces a CI secret's record (never its value); 'updated' when the name existed. */
  upsertSecret(repoKey: string, secret: { name: string; protected: boolean }, now: Date): 'created' | 'updated' {
    const repo = this.ensureRepo(repoKey);
    const at = isoSecond(now);
    const existing = repo.secrets.find((x) => x.name === secret.name);
    if (existing) {
      existing.protected = secret.protected;
      existing.updated_at = at;
    } else repo.secrets.push({ name: secret.name, protected: secret.protected, created_at: at, updated_at: at });
    this.persist();
    return existing ? 'updated' : 'created';
  }

  /** Oldest first. */
  deliveriesOf(webhookId: string): EmulatedDelivery[] {
    return this.data.deliveries[webhookId] ?? [];
  }

  delivery(webhookId: string, id: string): EmulatedDelivery | undefined {
    return this.deliveriesOf(webhookId).find((d) => d.id === id);
  }

  /** Adds a delivery; returns the deliveries dropped to stay within the per-webhook cap. */
  addDelivery(d: EmulatedDelivery): EmulatedDelivery[] {
    const list = (this.data.deliveries[d.webhook_id] ??= []);
    list.push(d);
    const dropped: EmulatedDelivery[] = [];
    for (let i = 0; list.length > this.maxDeliveries && i < list.length;) {
      if (list[i]!.next_attempt_at === null) dropped.push(...list.splice(i, 1));
      else i++;
    }
    this.persist();
    return dropped;
  }

  /** The delivery engine changed a delivery it holds (an attempt, its schedule, redelivery). */
  deliveryChanged(): void {
    this.persist();
  }

  /** Every delivery with an automatic attempt due. */
  pending(): EmulatedDelivery[] {
    return Object.values(this.data.deliveries).flatMap((list) => list.filter((d) => d.next_attempt_at !== null));
  }
}

/** Merges two lists sorted by number (no number twice in either); on a tie the incoming record wins. */
function mergeByNumber(stored: readonly IssueRecord[], incoming: readonly IssueRecord[]): { issues: IssueRecord[]; replaced: number } {
  const out: IssueRecord[] = [];
  let replaced = 0;
  let i = 0;
  let j = 0;
  let a = stored[0]?.number ?? Infinity;
  let b = incoming[0]?.number ?? Infinity;
  while (i < stored.length || j < incoming.length) {
    if (a < b) {
      out.push(stored[i++]!);
      a = stored[i]?.number ?? Infinity;
    } else {
      if (a === b) {
        replaced++;
        a = stored[++i]?.number ?? Infinity;
      }
      out.push(incoming[j++]!);
      b = incoming[j]?.number ?? Infinity;
    }
  }
  return { issues: out, replaced };
}
